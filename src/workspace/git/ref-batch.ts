/**
 * Hub ref updates made together. Peers submitting and moving on publish in bursts (hundreds of
 * merge requests within a second at 1,000 peers); each publish moved its branch with its own
 * `git update-ref`. Here the updates that arrive while one `update-ref --stdin` runs go into the
 * next one: one git process per burst instead of one per branch.
 */
import { err, ok, type Result } from '../../lang/result.js';
import { updateRefs } from '../integration/hub-git.js';

interface Pending {
  ref: string;
  to: string;
  resolve(result: Result<void>): void;
}

export class RefUpdateBatch {
  private pending: Pending[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly hub: string,
    private readonly message: string,
  ) {}

  /** Points `ref` at `to` (forced, as `git update-ref ref to` does). */
  update(ref: string, to: string): Promise<Result<void>> {
    return new Promise((resolve) => {
      this.pending.push({ ref, to, resolve });
      this.kick();
    });
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.flush().finally(() => {
      this.running = null;
      if (this.pending.length > 0) this.kick();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    // One update per ref in a transaction: the latest wins, as one after another would.
    const latest = new Map<string, Pending>();
    for (const item of batch) latest.set(item.ref, item);
    const updates = [...latest.values()];
    const together = await updateRefs(this.hub, updates, this.message);
    if (together.ok) {
      for (const item of batch) item.resolve(ok(undefined));
      return;
    }
    // The transaction is all or nothing: one bad update (a commit the hub lacks) fails the others,
    // so each is made alone and gets its own outcome.
    for (const item of updates) {
      const alone = await updateRefs(this.hub, [item], this.message);
      const result = alone.ok ? ok(undefined) : err(alone.error);
      for (const same of batch) if (same.ref === item.ref) same.resolve(result);
    }
  }
}
