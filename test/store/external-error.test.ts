import { describe, expect, it } from 'vitest';
import { describeExternalError, maskUrl } from '../../src/store/external-error.js';

const URL_ = 'postgres://colony:s3cret@db.internal:6543/fleet';
const say = (err: unknown) => describeExternalError(URL_, 'COLONY_DATABASE_URL', err);

describe('describeExternalError', () => {
  it('masks the password and names the setting', () => {
    expect(maskUrl(URL_)).toBe('postgres://colony:***@db.internal:6543/fleet');
    const line = say({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.5:6543' });
    expect(line).not.toContain('s3cret');
    expect(line).toMatch(/^store: COLONY_DATABASE_URL=postgres:\/\/colony:\*\*\*@db\.internal:6543\/fleet: /);
    expect(line).toMatch(/connection refused at db\.internal:6543: is Postgres running there/);
  });

  it('says what to change for each kind of failure', () => {
    expect(say({ code: 'ENOTFOUND', message: 'x' })).toMatch(/host db\.internal not found/);
    expect(say({ code: 'ETIMEDOUT', message: 'x' })).toMatch(/no route to db\.internal:6543 .*firewall/);
    expect(say({ code: '28P01', message: 'password authentication failed for user "colony"' })).toMatch(
      /failed for user "colony": check the user and password in the URL/,
    );
    expect(
      say({
        code: '28000',
        message: 'no pg_hba.conf entry for host "10.0.0.9", user "colony", database "fleet"',
      }),
    ).toMatch(/add a "host" \(or "hostssl"\) line for it to pg_hba\.conf/);
    expect(say({ code: '3D000', message: 'database "fleet" does not exist' })).toMatch(
      /CREATE DATABASE fleet OWNER colony\); Colony does not create databases/,
    );
    expect(say({ code: '42501', message: 'permission denied for database fleet' })).toMatch(
      /needs CREATE on database fleet/,
    );
    expect(say(new Error('The server does not support SSL connections'))).toMatch(/check sslmode/);
    expect(say({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' })).toMatch(
      /certificate is not trusted; name its CA with sslrootcert=/,
    );
    expect(say(new Error('something else'))).toMatch(/: something else \(docs\/storage\.md/);
  });

  it('recognises a value that is not a postgres URL', () => {
    expect(describeExternalError('db.internal', 'COLONY_DATABASE_URL', new Error('x'))).toMatch(
      /=\(not a URL\): not a postgres:\/\/ URL/,
    );
    expect(describeExternalError('localhost:5432', 'COLONY_DATABASE_URL', new Error('x'))).toMatch(
      /not a postgres:\/\/ URL \(expected postgres:\/\/user:password@host:port\/database\)/,
    );
    expect(describeExternalError('mysql://a@b/c', 'databaseUrl', new Error('x'))).toMatch(
      /^store: databaseUrl=mysql:\/\/a@b\/c: not a postgres:\/\/ URL/,
    );
  });
});
