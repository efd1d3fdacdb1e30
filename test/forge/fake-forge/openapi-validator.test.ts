/**
 * The fake forge's request check (openapi-validator.ts) rejects what the descriptions reject: an
 * operation that is not described, a body of the wrong type or without a required field, a query
 * parameter that is not described, and (our rule on top) a body property the schema does not name.
 * GitHub's description is GitHub's own, from the pinned @octokit/openapi.
 */
import { describe, expect, it } from 'vitest';
import { descriptionFor, githubDescriptionFile } from './descriptions.js';

const q = (text = '') => new URLSearchParams(text);
const JSON_TYPE = 'application/json';

describe('the GitHub description (@octokit/openapi)', () => {
  const { validator, source } = descriptionFor('github');
  const post = (path: string, body: unknown) =>
    validator.validate({ method: 'POST', path, query: q(), contentType: JSON_TYPE, body });

  it('is the pinned published description of api.github.com', () => {
    expect(source.published).toBe(true);
    expect(githubDescriptionFile().version).toBe('23.0.2');
    expect(validator.name).toMatch(/GitHub/);
  });

  it('accepts the requests Colony makes', () => {
    expect(
      validator.validate({
        method: 'GET',
        path: '/repos/acme/widgets',
        query: q(),
        contentType: undefined,
        body: undefined,
      }),
    ).toEqual([]);
    expect(
      post('/repos/acme/widgets/pulls', {
        title: 't',
        head: 'colony/r',
        base: 'main',
        body: 'b',
        draft: true,
      }),
    ).toEqual([]);
    expect(post('/repos/acme/widgets/issues/3/labels', { labels: ['colony'] })).toEqual([]);
    expect(
      post('/repos/acme/widgets/pulls/3/requested_reviewers', {
        reviewers: ['alice'],
        team_reviewers: ['core'],
      }),
    ).toEqual([]);
  });

  it('rejects a bad request', () => {
    expect(
      post('/repos/acme/widgets/pulls', { title: 't', head: 'h', base: 'main', draft: 'yes' }).join(),
    ).toMatch(/\/draft must be boolean/);
    expect(post('/repos/acme/widgets/pulls', { title: 't', base: 'main' }).join()).toMatch(
      /must have required property 'head'/,
    );
    expect(
      post('/repos/acme/widgets/pulls', { title: 't', head: 'h', base: 'main', darft: true }).join(),
    ).toMatch(/body property darft is not in the description/);
    expect(post('/repos/acme/widgets/pulls/x/requested_reviewers', { reviewers: ['a'] }).join()).toMatch(
      /path parameter pull_number must be integer/,
    );
    expect(post('/repos/acme/widgets/pulls/3/requested_reviewers', { reviewers: 'alice' }).join()).toMatch(
      /\/reviewers must be array/,
    );
    expect(post('/repos/acme/widgets/pull', { title: 't' }).join()).toMatch(/is not an operation of/);
    expect(
      validator
        .validate({
          method: 'GET',
          path: '/repos/acme/widgets',
          query: q('token=x'),
          contentType: undefined,
          body: undefined,
        })
        .join(),
    ).toMatch(/query parameter token is not described/);
    expect(
      validator
        .validate({
          method: 'POST',
          path: '/repos/acme/widgets/pulls',
          query: q(),
          contentType: 'text/plain',
          body: { head: 'h', base: 'b' },
        })
        .join(),
    ).toMatch(/not JSON/);
  });
});

describe("GitLab's and Gitea's descriptions (Colony's own: no npm package ships theirs)", () => {
  it('say they are not the published ones', () => {
    for (const kind of ['gitlab', 'gitea'] as const) {
      const { source, validator } = descriptionFor(kind);
      expect(source.published).toBe(false);
      expect(validator.name).toMatch(/Colony's description, not/);
    }
  });

  it('accept the requests Colony makes and reject bad ones', () => {
    const gitlab = descriptionFor('gitlab').validator;
    const mr = (body: unknown) =>
      gitlab.validate({
        method: 'POST',
        path: '/projects/acme%2Fwidgets/merge_requests',
        query: q(),
        contentType: JSON_TYPE,
        body,
      });
    expect(
      mr({
        source_branch: 'a',
        target_branch: 'main',
        title: 'Draft: t',
        description: 'd',
        labels: 'x,y',
        reviewer_ids: [3],
      }),
    ).toEqual([]);
    expect(mr({ source_branch: 'a', target_branch: 'main' }).join()).toMatch(/required property 'title'/);
    expect(mr({ source_branch: 'a', target_branch: 'main', title: 't', draft: true }).join()).toMatch(
      /draft/,
    );
    expect(
      mr({ source_branch: 'a', target_branch: 'main', title: 't', reviewer_ids: ['alice'] }).join(),
    ).toMatch(/reviewer_ids\/0 must be integer/);
    expect(
      gitlab.validate({
        method: 'GET',
        path: '/users',
        query: q('username=alice'),
        contentType: undefined,
        body: undefined,
      }),
    ).toEqual([]);

    const gitea = descriptionFor('gitea').validator;
    const pull = (body: unknown) =>
      gitea.validate({
        method: 'POST',
        path: '/repos/acme/widgets/pulls',
        query: q(),
        contentType: JSON_TYPE,
        body,
      });
    expect(pull({ head: 'h', base: 'main', title: 'WIP: t', body: 'b', labels: [101] })).toEqual([]);
    expect(pull({ head: 'h', base: 'main', title: 't', labels: ['colony'] }).join()).toMatch(
      /labels\/0 must be integer/,
    );
    expect(
      gitea
        .validate({
          method: 'GET',
          path: '/repos/acme/widgets/labels',
          query: q('page=0'),
          contentType: undefined,
          body: undefined,
        })
        .join(),
    ).toMatch(/page must be >= 1/);
  });
});
