// A small dependency container. The app owns the root scope; every request gets a child scope whose
// values shadow the root's and vanish with the request. A scope makes its maps only when something is put
// in it: most request scopes stay empty, and they are made for every request.

export type Token<T> = string | symbol | (abstract new (...args: never[]) => T);
type Factory<T> = (scope: Scope) => T;
/** 'singleton': built once, in the scope that registered it. 'scoped': built once per resolving scope. */
export type Lifetime = 'singleton' | 'scoped';

interface Registration {
  factory: Factory<unknown>;
  lifetime: Lifetime;
}

export class Scope {
  private values: Map<Token<unknown>, unknown> | undefined;
  private factories: Map<Token<unknown>, Registration> | undefined;

  constructor(private readonly parent?: Scope) {}

  /** Registers a ready value for a token in this scope. */
  provide<T>(token: Token<T>, value: T): this {
    this.keep(token, value);
    return this;
  }

  /** Registers a factory that builds the value on first use. */
  provideFactory<T>(token: Token<T>, factory: Factory<T>, lifetime: Lifetime = 'singleton'): this {
    (this.factories ??= new Map()).set(token, { factory, lifetime });
    return this;
  }

  has(token: Token<unknown>): boolean {
    return (
      this.values?.has(token) === true ||
      this.factories?.has(token) === true ||
      (this.parent?.has(token) ?? false)
    );
  }

  /** The value for a token, or undefined when nothing provides it. */
  get<T>(token: Token<T>): T | undefined {
    if (this.values?.has(token) === true) return this.values.get(token) as T;
    const registration = this.factories?.get(token);
    if (registration) return this.keep(token, registration.factory(this)) as T;
    const owner = this.parent?.ownerOf(token);
    if (owner?.kind === 'scoped') return this.keep(token, owner.registration.factory(this)) as T;
    return this.parent?.get(token);
  }

  /** The value for a token; throws when nothing provides it. */
  resolve<T>(token: Token<T>): T {
    if (!this.has(token)) throw new Error(`Nothing is provided for ${describeToken(token)}.`);
    return this.get(token) as T;
  }

  createScope(): Scope {
    return new Scope(this);
  }

  private keep(token: Token<unknown>, value: unknown): unknown {
    (this.values ??= new Map()).set(token, value);
    return value;
  }

  /** Where a token is registered nearest to this scope: a ready value, or a factory with its lifetime. */
  private ownerOf(
    token: Token<unknown>,
  ): { kind: 'value' | Lifetime; registration: Registration } | undefined {
    if (this.values?.has(token) === true) return { kind: 'value', registration: undefined as never };
    const registration = this.factories?.get(token);
    if (registration) return { kind: registration.lifetime, registration };
    return this.parent?.ownerOf(token);
  }
}

function describeToken(token: Token<unknown>): string {
  return typeof token === 'function' ? token.name : String(token);
}
