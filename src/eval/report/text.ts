/** The terminal lines of `colony eval report`: one line per arm. */
import { armLabel } from './simulated.js';
import type { ArmSummary } from './summary-types.js';

const ms = (v: number | null) => (v === null ? '—' : `${(v / 1000).toFixed(1)} s`);
const share = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const usd = (v: number | null) => (v === null ? '—' : `$${v.toFixed(v < 1 ? 4 : 2)}`);

/** One arm in a line: pass rate and interval, cost per success and interval, times; a simulated arm says so. */
export function armLine(a: ArmSummary): string {
  const ci = a.interval ? ` (${share(a.interval.lo)}–${share(a.interval.hi)})` : '';
  const cps = a.costPerSuccessCi
    ? ` (${usd(a.costPerSuccessCi.lo)}–${a.costPerSuccessCi.hi === null ? 'unbounded' : usd(a.costPerSuccessCi.hi)})`
    : '';
  const prices = a.simulated && a.costPerSuccessUsd !== null ? ' at simulated prices' : '';
  return (
    `${armLabel(a)}: pass ${share(a.passRate)}${ci} on ${a.tasks} task(s), cost per success ${usd(a.costPerSuccessUsd)}${cps}${prices}, ` +
    `median wall-clock ${ms(a.medianWallMs)}, to first green ${ms(a.medianFirstGreenMs)}`
  );
}
