// The app's dependency container: the root scope the app owns and the child scope each request gets.
import { describe, expect, it } from 'vitest';
import { Scope } from '../../runtime/app/container.js';

describe('Scope', () => {
  it('answers what it or a parent provides, the nearest first, and nothing else', () => {
    const root = new Scope().provide('name', 'root').provide('only-root', 1);
    const child = root.createScope().provide('name', 'child');
    expect([child.get('name'), child.get('only-root'), root.get('name')]).toEqual(['child', 1, 'root']);
    expect([child.has('only-root'), child.has('missing'), child.get('missing')]).toEqual([
      true,
      false,
      undefined,
    ]);
    expect(() => child.resolve('missing')).toThrow('Nothing is provided for missing.');
    // An empty request scope still reads through to the root.
    expect(root.createScope().resolve('name')).toBe('root');
  });

  it('builds a singleton once, in the scope that registered it, and a scoped value once per scope', () => {
    let singletons = 0;
    let scoped = 0;
    const root = new Scope()
      .provideFactory('db', () => ({ n: ++singletons }))
      .provideFactory('request', () => ({ n: ++scoped }), 'scoped');
    const a = root.createScope();
    const b = root.createScope();
    expect(a.get('db')).toBe(b.get('db'));
    expect(singletons).toBe(1);
    const first = a.get<{ n: number }>('request');
    expect(a.get('request')).toBe(first);
    expect(b.get('request')).not.toBe(first);
    expect(scoped).toBe(2);
  });
});
