import { describe, expect, it } from 'vitest';
import { resolveStatic } from '../../src/server/static.js';

describe('resolveStatic', () => {
  it('maps pages to the shell and modules to dist/src/{dashboard,view}', () => {
    expect(resolveStatic('/', '/pkg')?.path).toBe('/pkg/src/dashboard/static/index.html');
    expect(resolveStatic('/runs/r-1/agents/peer-2', '/pkg')?.path).toBe(
      '/pkg/src/dashboard/static/index.html',
    );
    expect(resolveStatic('/assets/dashboard/app.js', '/pkg')?.path).toBe('/pkg/dist/src/dashboard/app.js');
    expect(resolveStatic('/assets/view/svg/gantt.js', '/pkg')?.path).toBe('/pkg/dist/src/view/svg/gantt.js');
    expect(resolveStatic('/static/style.css', '/pkg')?.type).toMatch(/text\/css/);
  });

  it('never leaves those folders (encoded traversal, other folders, other extensions)', () => {
    expect(resolveStatic('/assets/dashboard/..%2F..%2Fserver%2Ftoken.js', '/pkg')).toBeNull();
    expect(resolveStatic('/assets/dashboard/%2e%2e/%2e%2e/store/store.js', '/pkg')).toBeNull();
    expect(resolveStatic('/assets/server/token.js', '/pkg')).toBeNull();
    expect(resolveStatic('/assets/dashboard/app.ts', '/pkg')).toBeNull();
    expect(resolveStatic('/static/..%2F..%2F..%2Fpackage.json', '/pkg')).toBeNull();
  });
});
