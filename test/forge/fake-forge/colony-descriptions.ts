/**
 * GitLab's and Gitea's endpoints that Colony calls, described by Colony (OpenAPI 3.0), for the fake
 * forge to check requests against. These are NOT the forges' published descriptions: GitLab publishes
 * doc/api/openapi/openapi_v3.yaml and Gitea templates/swagger/v1_json.tmpl in their own repositories,
 * and no npm package ships either (docs/forges.md, "What the tests check"), so the tests cannot pin
 * them. They were written from each forge's REST API documentation (GitLab 17 `/api/v4`, Gitea 1.22
 * `/api/v1`), name the body fields each endpoint takes and their types, and are deliberately no looser
 * than the documentation. GitHub's requests are checked against GitHub's own published description
 * (@octokit/openapi), see descriptions.ts.
 */

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const strings = { type: 'array', items: string } as const;
const integers = { type: 'array', items: integer } as const;
const pathParam = (name: string, schema: object = string) => ({ name, in: 'path', required: true, schema });
const json = (schema: object, required = true) => ({
  required,
  content: { 'application/json': { schema } },
});

export const GITLAB_V4_AS_COLONY_READS_IT = {
  openapi: '3.0.3',
  info: { title: "GitLab REST API v4 (Colony's description, not GitLab's)", version: 'colony-1' },
  paths: {
    '/projects/{id}': {
      get: { parameters: [pathParam('id')], responses: {} },
    },
    '/projects/{id}/merge_requests': {
      get: {
        parameters: [
          pathParam('id'),
          { name: 'source_branch', in: 'query', schema: string },
          { name: 'target_branch', in: 'query', schema: string },
          {
            name: 'state',
            in: 'query',
            schema: { type: 'string', enum: ['opened', 'closed', 'locked', 'merged', 'all'] },
          },
          { name: 'page', in: 'query', schema: integer },
          { name: 'per_page', in: 'query', schema: integer },
        ],
        responses: {},
      },
      post: {
        parameters: [pathParam('id')],
        requestBody: json({
          type: 'object',
          required: ['source_branch', 'target_branch', 'title'],
          properties: {
            source_branch: { type: 'string', minLength: 1 },
            target_branch: { type: 'string', minLength: 1 },
            title: { type: 'string', minLength: 1 },
            description: { type: 'string', maxLength: 1_048_576 },
            labels: { oneOf: [string, strings] },
            assignee_id: integer,
            assignee_ids: integers,
            reviewer_ids: integers,
            milestone_id: integer,
            remove_source_branch: { type: 'boolean' },
            squash: { type: 'boolean' },
            allow_collaboration: { type: 'boolean' },
            target_project_id: integer,
          },
          additionalProperties: false,
        }),
        responses: {},
      },
    },
    '/projects/{id}/issues': {
      get: {
        parameters: [
          pathParam('id'),
          { name: 'labels', in: 'query', schema: string },
          { name: 'state', in: 'query', schema: { type: 'string', enum: ['opened', 'closed', 'all'] } },
          {
            name: 'order_by',
            in: 'query',
            schema: {
              type: 'string',
              enum: [
                'created_at',
                'updated_at',
                'priority',
                'due_date',
                'relative_position',
                'label_priority',
                'milestone_due',
                'popularity',
                'weight',
                'title',
              ],
            },
          },
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'] } },
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
        ],
        responses: {},
      },
    },
    '/projects/{id}/issues/{issue_iid}/notes': {
      get: {
        parameters: [
          pathParam('id'),
          pathParam('issue_iid', integer),
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'] } },
          { name: 'order_by', in: 'query', schema: { type: 'string', enum: ['created_at', 'updated_at'] } },
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
        ],
        responses: {},
      },
      post: {
        parameters: [pathParam('id'), pathParam('issue_iid', integer)],
        requestBody: json({
          type: 'object',
          required: ['body'],
          properties: {
            body: { type: 'string', minLength: 1, maxLength: 1_000_000 },
            confidential: { type: 'boolean' },
            internal: { type: 'boolean' },
            created_at: string,
          },
          additionalProperties: false,
        }),
        responses: {},
      },
    },
    '/users': {
      get: {
        parameters: [
          { name: 'username', in: 'query', schema: string },
          { name: 'search', in: 'query', schema: string },
          { name: 'page', in: 'query', schema: integer },
          { name: 'per_page', in: 'query', schema: integer },
        ],
        responses: {},
      },
    },
  },
} as const;

export const GITEA_V1_AS_COLONY_READS_IT = {
  openapi: '3.0.3',
  info: { title: "Gitea API v1 (Colony's description, not Gitea's)", version: 'colony-1' },
  paths: {
    '/repos/{owner}/{repo}': {
      get: { parameters: [pathParam('owner'), pathParam('repo')], responses: {} },
    },
    '/repos/{owner}/{repo}/labels': {
      get: {
        parameters: [
          pathParam('owner'),
          pathParam('repo'),
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
        ],
        responses: {},
      },
    },
    '/repos/{owner}/{repo}/pulls': {
      get: {
        parameters: [
          pathParam('owner'),
          pathParam('repo'),
          { name: 'state', in: 'query', schema: { type: 'string', enum: ['open', 'closed', 'all'] } },
          { name: 'sort', in: 'query', schema: string },
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
        ],
        responses: {},
      },
      post: {
        parameters: [pathParam('owner'), pathParam('repo')],
        requestBody: json({
          type: 'object',
          properties: {
            head: { type: 'string', minLength: 1 },
            base: { type: 'string', minLength: 1 },
            title: { type: 'string', minLength: 1 },
            body: string,
            assignee: string,
            assignees: strings,
            labels: integers,
            milestone: integer,
            due_date: { type: 'string', format: 'date-time' },
            reviewers: strings,
            team_reviewers: strings,
          },
          additionalProperties: false,
        }),
        responses: {},
      },
    },
    '/repos/{owner}/{repo}/issues': {
      get: {
        parameters: [
          pathParam('owner'),
          pathParam('repo'),
          { name: 'state', in: 'query', schema: { type: 'string', enum: ['open', 'closed', 'all'] } },
          { name: 'labels', in: 'query', schema: string },
          { name: 'q', in: 'query', schema: string },
          { name: 'type', in: 'query', schema: { type: 'string', enum: ['issues', 'pulls'] } },
          { name: 'milestones', in: 'query', schema: string },
          { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
          { name: 'before', in: 'query', schema: { type: 'string', format: 'date-time' } },
          { name: 'created_by', in: 'query', schema: string },
          { name: 'assigned_by', in: 'query', schema: string },
          { name: 'mentioned_by', in: 'query', schema: string },
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
        ],
        responses: {},
      },
    },
    '/repos/{owner}/{repo}/issues/{index}/comments': {
      get: {
        parameters: [
          pathParam('owner'),
          pathParam('repo'),
          pathParam('index', integer),
          { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
          { name: 'before', in: 'query', schema: { type: 'string', format: 'date-time' } },
        ],
        responses: {},
      },
      post: {
        parameters: [pathParam('owner'), pathParam('repo'), pathParam('index', integer)],
        requestBody: json({
          type: 'object',
          required: ['body'],
          properties: { body: string },
          additionalProperties: false,
        }),
        responses: {},
      },
    },
    '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers': {
      post: {
        parameters: [pathParam('owner'), pathParam('repo'), pathParam('index', integer)],
        requestBody: json({
          type: 'object',
          properties: { reviewers: strings, team_reviewers: strings },
          additionalProperties: false,
        }),
        responses: {},
      },
    },
  },
} as const;
