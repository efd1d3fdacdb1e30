/**
 * What the three adapters share for issues (`colony watch`): reading a list page by page, and the
 * shape checks of an issue and a comment, each forge's field names mapped to ForgeIssue/ForgeComment.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';
import type { ForgeHttp } from './http.js';
import type { ForgeComment, ForgeIssue } from './types.js';

/** At most this many pages of a list are read (100 per page on GitHub and GitLab, 50 on Gitea). */
const MAX_PAGES = 20;

/**
 * Every page of a list at `path`: `pageQuery(n)` names page n in the forge's words; a page shorter
 * than `pageSize` is the last one.
 */
export async function readAllPages<T>(
  http: ForgeHttp,
  path: string,
  query: Record<string, string>,
  pageQuery: (page: number) => Record<string, string>,
  pageSize: number,
  item: z.ZodType<T>,
): Promise<Result<T[]>> {
  const all: T[] = [];
  const list = z.array(item);
  for (let page = 1; page <= MAX_PAGES; page++) {
    const got = await http.request('GET', path, { query: { ...query, ...pageQuery(page) } });
    if (!got.ok) return got;
    const parsed = list.safeParse(got.value.json);
    if (!parsed.success) return err(`GET ${path}: not the list it should be`);
    all.push(...parsed.data);
    if (parsed.data.length < pageSize) break;
  }
  return ok(all);
}

/** An issue as GitHub and Gitea send it (GitHub: a pull request carries `pull_request`). */
export const HubIssue = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string(),
  pull_request: z.unknown().optional(),
});

export function hubIssues(items: ReadonlyArray<z.infer<typeof HubIssue>>): ForgeIssue[] {
  return oldestFirst(
    items
      .filter((i) => i.pull_request === undefined || i.pull_request === null)
      .map((i) => ({ number: i.number, title: i.title, body: i.body ?? '', url: i.html_url })),
  );
}

export const Comment = z.object({ id: z.number().int(), body: z.string().nullish() });

export function comments(items: ReadonlyArray<z.infer<typeof Comment>>): ForgeComment[] {
  return items.map((c) => ({ id: c.id, body: c.body ?? '' }));
}

/** The answer to a new comment. */
export async function postComment(
  http: ForgeHttp,
  path: string,
  body: string,
): Promise<Result<ForgeComment>> {
  const posted = await http.request('POST', path, { body: { body } });
  if (!posted.ok) return posted;
  const parsed = Comment.safeParse(posted.value.json);
  if (!parsed.success) return err(`POST ${path}: no comment id in the answer`);
  return ok({ id: parsed.data.id, body: parsed.data.body ?? '' });
}

export function oldestFirst(issues: ForgeIssue[]): ForgeIssue[] {
  return [...issues].sort((a, b) => a.number - b.number);
}
