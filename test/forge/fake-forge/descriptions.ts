/**
 * The descriptions the fake forge checks requests against, one per forge. GitHub's is GitHub's own
 * published OpenAPI description of api.github.com, from the pinned npm package @octokit/openapi
 * (package.json: an exact version). GitLab's and Gitea's are Colony's own (colony-descriptions.ts):
 * no npm package ships theirs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ForgeKind } from '../../../src/forge/types.js';
import { GITEA_V1_AS_COLONY_READS_IT, GITLAB_V4_AS_COLONY_READS_IT } from './colony-descriptions.js';
import { type OpenApiValidator, openApiValidator } from './openapi-validator.js';

const require = createRequire(import.meta.url);

/** Where the published description came from, for messages and docs/forges.md. */
export interface DescriptionSource {
  /** True only for a forge's own published description. */
  published: boolean;
  what: string;
}

export function githubDescriptionFile(): { file: string; version: string } {
  const pkg = require.resolve('@octokit/openapi/package.json');
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  return { file: path.join(path.dirname(pkg), 'generated', 'api.github.com.json'), version };
}

let github: OpenApiValidator | undefined;

export function descriptionFor(kind: ForgeKind): { validator: OpenApiValidator; source: DescriptionSource } {
  if (kind === 'github') {
    const { file, version } = githubDescriptionFile();
    github ??= openApiValidator(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
    return {
      validator: github,
      source: { published: true, what: `@octokit/openapi ${version} generated/api.github.com.json` },
    };
  }
  const spec = kind === 'gitlab' ? GITLAB_V4_AS_COLONY_READS_IT : GITEA_V1_AS_COLONY_READS_IT;
  return {
    validator: openApiValidator(JSON.parse(JSON.stringify(spec)) as Record<string, unknown>),
    source: { published: false, what: spec.info.title },
  };
}
