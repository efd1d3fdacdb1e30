/** Turns a title into a URL slug: lower case, words joined by single dashes. */
export function slugify(title) {
  return title.trim().replace(/[^A-Za-z0-9]/g, '-');
}
