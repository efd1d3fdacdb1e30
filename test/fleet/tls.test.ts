/**
 * The fleet gateway over TLS (src/fleet/tls.ts), with real git and a real HTTPS server on 127.0.0.1:
 * a worker's git calls (worker-hub.ts hubHttpConfig) and merge-request calls (fleet-request.ts) reach
 * an owner whose certificate chains to the worker's CA, and are refused — before any token is sent
 * in the clear — by one whose certificate does not (no CA given, another CA, another address).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { fleetRequestJson } from '../../src/fleet/fleet-request.js';
import { type Gateway, startGateway } from '../../src/fleet/gateway.js';
import { readTlsPair } from '../../src/fleet/tls.js';
import { hubHttpConfig } from '../../src/worker/worker-hub.js';
import { git, gitError } from '../../src/workspace/git/git.js';
import { createHub } from '../../src/workspace/hub/hub.js';
import type { IntegrationPort } from '../../src/workspace/integration/tools.js';
import { makeTestCa, type TestCa } from '../helpers/tls-certs.js';
import { makeUserRepo, tempDir } from '../workspace/helpers.js';

const RUN = 'r-test-tls001';
const HOUR = 3_600_000;
/** git's words (GnuTLS or OpenSSL builds) for a certificate it could not verify or that names another host. */
const CERT_REFUSED =
  /server certificate verification failed|SSL certificate problem|certificate verify failed|no alternative certificate subject name|does not match target host/i;

/** The gateway's queue: these tests only reach its transport, so any call to the queue fails them. */
const untouchedQueue: IntegrationPort = {
  approval: 'auto',
  enqueue: () => Promise.reject(new Error('the queue must not be reached')),
  status: () => Promise.reject(new Error('the queue must not be reached')),
  outcome: () => Promise.reject(new Error('the queue must not be reached')),
  reply: () => Promise.reject(new Error('the queue must not be reached')),
};

describe('the fleet gateway over TLS', () => {
  let tmp: ReturnType<typeof tempDir>;
  let ca: TestCa;
  let otherCa: TestCa;
  let gateway: Gateway;
  let wrongName: Gateway;
  let mirror: string;
  const secret = createRunSecret();
  const token = (agent = 'peer-1') =>
    issueAgentToken(secret, { runId: RUN, agent, expiresAt: Date.now() + HOUR });

  const start = async (ips: string[]) => {
    const pair = readTlsPair(ca.serverCert(ips));
    if (!pair.ok) throw new Error(pair.error);
    return startGateway({
      runId: RUN,
      hubPath: path.join(tmp.dir, 'hub.git'),
      secret,
      queue: untouchedQueue,
      tls: pair.value,
      // peer-1 may use the hub; peer-2's token is refused, so the merge-request route answers without
      // reaching the queue.
      authorize: async (claims) =>
        claims.agent === 'peer-1' ? null : 'refused by the test (the route answered)',
    });
  };

  beforeAll(async () => {
    tmp = tempDir('colony-fleet-tls-');
    ca = makeTestCa();
    otherCa = makeTestCa();
    const user = path.join(tmp.dir, 'user');
    mkdirSync(user);
    const { second } = makeUserRepo(user);
    const created = await createHub(path.join(tmp.dir, 'hub.git'), user, second);
    if (!created.ok) throw new Error(created.error);
    gateway = await start(['127.0.0.1']);
    // A certificate for another address: right CA, wrong name.
    wrongName = await start(['127.0.0.2']);
    mirror = path.join(tmp.dir, 'mirror.git');
    const init = await git(['init', '--bare', '--quiet', mirror], { cwd: tmp.dir });
    if (!init.ok) throw new Error(gitError(init));
  });

  afterAll(async () => {
    await gateway?.close();
    await wrongName?.close();
    tmp?.cleanup();
  });

  const lsRemote = (url: string, caFile?: string) =>
    git(['ls-remote', url, 'refs/heads/main'], {
      cwd: mirror,
      config: hubHttpConfig(token(), caFile),
      timeoutMs: 30_000,
    });

  it('serves https:// and git reaches the hub with the CA', async () => {
    expect(gateway.hubUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/git\//);
    const listed = await lsRemote(gateway.hubUrl, ca.caFile);
    expect(listed.ok, listed.ok ? '' : gitError(listed)).toBe(true);
    expect(listed.ok && listed.stdout).toMatch(/^[0-9a-f]{40}\trefs\/heads\/main$/m);
  });

  it("git refuses an owner whose certificate does not chain to the worker's CA, or names another host", async () => {
    for (const [url, caFile, why] of [
      [gateway.hubUrl, undefined, CERT_REFUSED],
      [gateway.hubUrl, otherCa.caFile, CERT_REFUSED],
      [wrongName.hubUrl, ca.caFile, CERT_REFUSED],
    ] as const) {
      const listed = await lsRemote(url, caFile);
      expect(listed.ok, `${url} with CA ${caFile ?? '(none)'}`).toBe(false);
      expect(listed.ok ? '' : gitError(listed)).toMatch(why);
    }
  });

  it('the merge-request client reaches the gateway with the CA, and refuses it without', async () => {
    const url = `${gateway.url}/fleet/${RUN}/merge-requests/1`;
    const headers = { authorization: `Bearer ${token('peer-2')}` };
    const answered = await fleetRequestJson<{ error?: string }>(url, {
      headers,
      ca: readFileSync(ca.caFile),
      signal: AbortSignal.timeout(30_000),
    });
    // The route itself answered (its authorize hook refused the token), over TLS.
    expect(answered).toEqual({ status: 403, body: { error: 'refused by the test (the route answered)' } });
    await expect(fleetRequestJson(url, { headers, signal: AbortSignal.timeout(30_000) })).rejects.toThrow(
      /self[- ]signed|unable to (get|verify)/i,
    );
    await expect(
      fleetRequestJson(`${wrongName.url}/fleet/${RUN}/merge-requests/1`, {
        headers,
        ca: readFileSync(ca.caFile),
        signal: AbortSignal.timeout(30_000),
      }),
    ).rejects.toThrow(/IP: 127\.0\.0\.1 is not in the cert's list|altnames/i);
  });
});
