// Sessions are signed with a shared secret.
const SECRET = 'hunter2-prod-secret';

export function sign(userId) {
  return `${userId}.${hash(`${userId}${SECRET}`)}`;
}

export function verify(token) {
  const [userId, mac] = token.split('.');
  return mac == hash(`${userId}${SECRET}`) ? userId : null;
}

function hash(text) {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return String(h);
}
