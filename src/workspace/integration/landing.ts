/**
 * Landing and its counterpart, rejection: what the queue publishes when a request is decided. A
 * verified batch lands by moving hub main in one guarded ref transaction (with refs/colony/landed/<id>
 * per request); then its `merge.landed` events, PATCH entries and answers go out together. A rejected
 * request gets `merge.rejected`, a FAIL entry and a direct message to its author.
 */
import type { EventInput, EventKind } from '../../core/events.js';
import { MAIN_REF } from '../hub/main.js';
import { changedFiles, changedFilesOfCommits, revParse, updateRefs } from './hub-git.js';
import {
  clip,
  failSummary,
  landedDirectMessage,
  OUTPUT_TAIL,
  rejectionDirectMessage,
  SUMMARY_MAX,
  tail,
} from './texts.js';
import type {
  Applied,
  IntegrationQueueOptions,
  IntegrationStats,
  MergeRequestResult,
  Pending,
  RejectReason,
} from './types.js';

type LandingOptions = Pick<IntegrationQueueOptions, 'runId' | 'log' | 'hooks' | 'sender' | 'approval'>;

export class Landing {
  constructor(
    private readonly hub: string,
    private readonly options: LandingOptions,
    private readonly stats: IntegrationStats,
    /** Answers whoever waits for the request. */
    private readonly resolve: (mr: number, result: MergeRequestResult) => void,
  ) {}

  /**
   * Moves main from `mainBefore` to the chain's top. Fails (nothing changed, nothing published) when
   * main moved meanwhile.
   */
  async land(
    applied: Applied[],
    mainBefore: string,
    verifySummary: string,
  ): Promise<{ ok: true } | { ok: false; error: string }> {
    const top = (applied[applied.length - 1] as Applied).commit;
    const landed = await updateRefs(this.hub, [
      { ref: MAIN_REF, to: top, expectOld: mainBefore },
      ...applied.map((a) => ({ ref: `refs/colony/landed/${a.request.mr}`, to: a.commit })),
    ]);
    if (!landed.ok) return landed;
    const batch = applied.map((a) => a.request.mr);
    // The batch has landed: its events, PATCH entries and answers go out together (group commit).
    // Each landed commit's parent is the previous one of the chain: one diff-tree for the batch.
    const changed = await changedFilesOfCommits(
      this.hub,
      applied.map((a) => a.commit),
    );
    const filesOf = applied.map((a) => changed.get(a.commit) ?? []);
    this.stats.landed += applied.length;
    await Promise.all(
      applied.map(({ request, commit }, i) =>
        this.append({
          runId: this.options.runId,
          agent: request.agent,
          kind: 'merge.landed',
          data: { mr: request.mr, commit, mainBefore, batch, files: filesOf[i] ?? [], verify: verifySummary },
        }),
      ),
    );
    await Promise.all(
      applied.map(({ request, commit }, i) => {
        const files = filesOf[i] ?? [];
        return this.hook(() =>
          this.options.hooks.postEntry({
            author: request.agent,
            kind: 'PATCH',
            summary: clip(`MR ${request.mr} landed as ${commit.slice(0, 10)}: ${request.note}`, SUMMARY_MAX),
            detail: [
              `landed commit: ${commit}`,
              `agent commit: ${request.commit} (refs/colony/mr/${request.mr}, branch ${request.branch})`,
              `files: ${files.join(', ')}`,
              `idea: ${request.note}`,
              `evidence: ${verifySummary}`,
              `batch: ${batch.join(', ')}; main before: ${mainBefore}`,
            ].join('\n'),
            scope: files,
          }),
        );
      }),
    );
    // Authors whose merge_request did not wait hear it now: a person approved these after it had
    // answered, or the requester went on working (notify).
    await Promise.all(
      applied.map(({ request, commit }, i) => {
        const approvedLater = this.options.approval === 'human' && request.parked !== undefined;
        if (!approvedLater && !request.notify) return Promise.resolve();
        return this.hook(() =>
          this.options.hooks.sendDirect(
            request.agent,
            this.options.sender ?? 'integration',
            landedDirectMessage(request.mr, commit, filesOf[i] ?? [], approvedLater),
          ),
        );
      }),
    );
    applied.forEach(({ request, commit }, i) => {
      this.resolve(request.mr, {
        status: 'landed',
        mr: request.mr,
        commit,
        agentCommit: request.commit,
        mainBefore,
        batch,
        files: filesOf[i] ?? [],
        verify: verifySummary,
      });
    });
    return { ok: true };
  }

  /**
   * A request whose process died between moving main and logging `merge.landed` has its
   * refs/colony/landed/<id> (set in the same ref transaction as main): log the landing now and answer
   * it. Returns false when the request did not land.
   */
  async recoverLanded(request: Pending): Promise<boolean> {
    const commit = await revParse(this.hub, `refs/colony/landed/${request.mr}`);
    if (commit === null) return false;
    const mainBefore = (await revParse(this.hub, `${commit}^`)) ?? commit;
    const files = await changedFiles(this.hub, mainBefore, commit);
    this.stats.landed++;
    await this.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.landed',
      data: { mr: request.mr, commit, mainBefore, batch: [request.mr], files },
    });
    this.resolve(request.mr, {
      status: 'landed',
      mr: request.mr,
      commit,
      agentCommit: request.commit,
      mainBefore,
      batch: [request.mr],
      files,
      verify: 'landed before a restart (recovered from the hub)',
    });
    return true;
  }

  async reject(request: Pending, reason: RejectReason, files: string[], output: string): Promise<void> {
    this.stats.rejected++;
    const kept = tail(output, OUTPUT_TAIL);
    await this.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.rejected',
      data: { mr: request.mr, reason, files, output: kept },
    });
    // An empty change is not a failure anyone else needs to hear about; the requester gets the result
    // (by message when it did not wait).
    if (reason === 'nothing_to_merge' && request.notify) {
      await this.hook(() =>
        this.options.hooks.sendDirect(
          request.agent,
          this.options.sender ?? 'integration',
          rejectionDirectMessage(request.mr, reason, files, output),
        ),
      );
    }
    if (reason !== 'nothing_to_merge') {
      await this.hook(() =>
        this.options.hooks.postEntry({
          author: request.agent,
          kind: 'FAIL',
          summary: failSummary(request.mr, reason, files, output),
          detail: [
            `merge request ${request.mr} (${request.branch} at ${request.commit}): ${reason}`,
            `note: ${request.note}`,
            files.length > 0 ? `files: ${files.join(', ')}` : '',
            `output (tail):\n${kept}`,
          ]
            .filter((line) => line !== '')
            .join('\n'),
          scope: files,
        }),
      );
      await this.hook(() =>
        this.options.hooks.sendDirect(
          request.agent,
          this.options.sender ?? 'integration',
          rejectionDirectMessage(request.mr, reason, files, output),
        ),
      );
    }
    this.resolve(request.mr, {
      status: 'rejected',
      mr: request.mr,
      agentCommit: request.commit,
      reason,
      files,
      output: kept,
    });
  }

  async append<K extends EventKind>(event: EventInput<K>): Promise<void> {
    await this.options.log.append(event);
  }

  async warn(message: string): Promise<void> {
    await this.options.log
      .append({ runId: this.options.runId, agent: null, kind: 'warning', data: { message } })
      .catch(() => {});
  }

  /** Hooks are other services: their failure is logged, never a reason to undo a landing. */
  private async hook(call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      await this.warn(`integration hook failed: ${(error as Error).message}`);
    }
  }
}
