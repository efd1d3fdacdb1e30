/// <reference lib="dom" />
/**
 * A virtualised list: fixed row height, only the rows in view (plus a margin) exist in the DOM, so
 * 1,000 agents or 100k feed entries cost a few dozen nodes. `update(items)` re-renders in place.
 */

export interface VirtualList<T> {
  el: HTMLElement;
  update(items: readonly T[]): void;
}

export function virtualList<T>(
  rowHeight: number,
  maxHeight: number,
  render: (item: T, index: number) => HTMLElement,
  options: { className?: string; empty?: string } = {},
): VirtualList<T> {
  const el = document.createElement('div');
  el.className = `vlist ${options.className ?? ''}`;
  el.style.maxHeight = `${maxHeight}px`;
  const spacer = document.createElement('div');
  spacer.className = 'vlist-spacer';
  el.append(spacer);
  let items: readonly T[] = [];
  let frame = 0;
  const draw = () => {
    frame = 0;
    spacer.style.height = `${items.length * rowHeight}px`;
    // Grow with the content up to maxHeight, then scroll.
    el.style.height = `${Math.min(maxHeight, Math.max(2, items.length) * rowHeight)}px`;
    const top = el.scrollTop;
    const visible = Math.ceil((el.clientHeight || maxHeight) / rowHeight);
    const first = Math.max(0, Math.floor(top / rowHeight) - 5);
    const last = Math.min(items.length, first + visible + 10);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i += 1) {
      const item = items[i];
      if (item === undefined) continue;
      const row = render(item, i);
      row.classList.add('vrow');
      row.style.transform = `translateY(${i * rowHeight}px)`;
      row.style.height = `${rowHeight}px`;
      rows.push(row);
    }
    if (items.length === 0 && options.empty) {
      const p = document.createElement('div');
      p.className = 'muted vempty';
      p.textContent = options.empty;
      rows.push(p);
    }
    spacer.replaceChildren(...rows);
  };
  el.addEventListener('scroll', () => {
    frame ||= requestAnimationFrame(draw);
  });
  return {
    el,
    update(next) {
      items = next;
      frame ||= requestAnimationFrame(draw);
    },
  };
}
