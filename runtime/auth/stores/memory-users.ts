// The in-memory user source (each auth store has an in-memory default), for development and
// tests. Per process and lost on restart. Bounded by `maxUsers` (100000): accounts are never evicted, since
// losing one is worse than refusing a sign-up, so a full source answers AUTH_STORE_FULL (507) to `create`.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import {
  normalizeEmail,
  publicUser,
  type AuthUser,
  type NewUser,
  type PublicUser,
  type UserPatch,
  type UserSource,
} from './users.js';
import { invalidOption } from '../../config/option-errors.js';

export const DEFAULT_MAX_USERS = 100_000;

export interface MemoryUserSourceOptions {
  /** Accounts kept at most; `create` answers AUTH_STORE_FULL beyond. Default 100000. */
  maxUsers?: number;
  /** Initial rows, kept exactly as given (email case included), e.g. to reproduce a legacy table. */
  users?: readonly AuthUser[];
  /** Makes the id of a new user. Default crypto.randomUUID. */
  newId?: () => string;
}

/** The keys of MemoryUserSourceOptions; any other is refused. */
const SOURCE_OPTIONS = optionKeys<MemoryUserSourceOptions>({
  maxUsers: true,
  users: true,
  newId: true,
});

function copyUser(user: AuthUser): AuthUser {
  const copy: AuthUser = { id: user.id, email: user.email, emailVerified: user.emailVerified };
  if (user.passwordHash !== undefined) copy.passwordHash = user.passwordHash;
  return copy;
}

export class MemoryUserSource implements UserSource {
  readonly maxUsers: number;
  private readonly usersById = new Map<string, AuthUser>();
  /** Normalised email → ids of the rows holding it; more than one id only for seeded rows differing in case. */
  private readonly idsByEmail = new Map<string, Set<string>>();
  private readonly newId: () => string;

  constructor(options: MemoryUserSourceOptions = {}) {
    rejectUnknownOptions(options, SOURCE_OPTIONS, 'MemoryUserSource');
    const maxUsers = positiveWholeNumber(options.maxUsers, DEFAULT_MAX_USERS, 'MemoryUserSource', 'maxUsers');
    this.maxUsers = maxUsers;
    this.newId = options.newId ?? randomUUID;
    const initial = options.users ?? [];
    if (initial.length > maxUsers) {
      throw invalidOption(
        'MemoryUserSource',
        'users',
        `at most maxUsers (${maxUsers}) accounts`,
        `${initial.length} given`,
      );
    }
    for (const user of initial) {
      if (this.usersById.has(user.id))
        throw invalidOption(
          'MemoryUserSource',
          'users',
          'accounts with distinct ids',
          `"${user.id}" repeats`,
        );
      this.insert(copyUser(user));
    }
  }

  /** Accounts currently held. */
  get size(): number {
    return this.usersById.size;
  }

  async findByEmail(email: string): Promise<AuthUser | null> {
    const ids = this.idsByEmail.get(normalizeEmail(email));
    if (ids === undefined || ids.size === 0) return null;
    if (ids.size > 1) throw errors.AUTH_EMAIL_AMBIGUOUS();
    const [id] = ids;
    const user = id === undefined ? undefined : this.usersById.get(id);
    return user === undefined ? null : copyUser(user);
  }

  async findById(id: string): Promise<AuthUser | null> {
    const user = this.usersById.get(id);
    return user === undefined ? null : copyUser(user);
  }

  // No await anywhere below: the email check and the insert happen in one step, so concurrent sign-ups of one
  // address cannot both pass the check.
  async create(user: NewUser): Promise<AuthUser> {
    const email = normalizeEmail(user.email);
    if (this.isTaken(email)) throw errors.AUTH_EMAIL_TAKEN();
    if (this.usersById.size >= this.maxUsers) throw errors.AUTH_STORE_FULL();
    const id = this.newId();
    if (this.usersById.has(id)) throw new Error(`MemoryUserSource: newId() returned an id in use ("${id}").`);
    const created: AuthUser = { id, email, emailVerified: user.emailVerified ?? false };
    if (user.passwordHash !== undefined) created.passwordHash = user.passwordHash;
    this.insert(created);
    return copyUser(created);
  }

  async update(id: string, patch: UserPatch): Promise<AuthUser | null> {
    const user = this.usersById.get(id);
    if (user === undefined) return null;
    if (patch.email !== undefined) {
      const email = normalizeEmail(patch.email);
      if (this.isTaken(email, id)) throw errors.AUTH_EMAIL_TAKEN();
      this.unindex(user);
      user.email = email;
      this.index(user);
    }
    if (patch.passwordHash === null) delete user.passwordHash;
    else if (patch.passwordHash !== undefined) user.passwordHash = patch.passwordHash;
    if (patch.emailVerified !== undefined) user.emailVerified = patch.emailVerified;
    return copyUser(user);
  }

  async findByIds(ids: readonly string[]): Promise<PublicUser[]> {
    if (ids.length === 0) return [];
    const found: PublicUser[] = [];
    for (const id of new Set(ids)) {
      const user = this.usersById.get(id);
      if (user !== undefined) found.push(publicUser(user));
    }
    return found;
  }

  /** Whether a row other than `exceptId` holds the (normalised) email. */
  private isTaken(email: string, exceptId?: string): boolean {
    const ids = this.idsByEmail.get(email);
    if (ids === undefined) return false;
    for (const id of ids) if (id !== exceptId) return true;
    return false;
  }

  private insert(user: AuthUser): void {
    this.usersById.set(user.id, user);
    this.index(user);
  }

  private index(user: AuthUser): void {
    const email = normalizeEmail(user.email);
    const ids = this.idsByEmail.get(email) ?? new Set<string>();
    ids.add(user.id);
    this.idsByEmail.set(email, ids);
  }

  private unindex(user: AuthUser): void {
    const email = normalizeEmail(user.email);
    const ids = this.idsByEmail.get(email);
    ids?.delete(user.id);
    if (ids?.size === 0) this.idsByEmail.delete(email);
  }
}
