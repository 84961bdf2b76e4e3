// A MembershipStore that answers `roleOf` (every tenant-scoped request) from this process's hot cache,
// "not a member" included: a request naming a tenant the caller is not in is refused without a query too.
// Every change to a membership publishes its topic; every other read passes through.
import type {
  MembershipAddition,
  MembershipAdditionRules,
  MembershipChange,
  MembershipChangeRules,
  MembershipRemoval,
  MembershipStore,
  Membership,
  Tenant,
  TenantOfMember,
} from '../../tenancy/memberships.js';
import { membershipTopic, type InvalidationBus } from './bus.js';
import type { HotCache } from './hot-cache.js';
import { hotCacheFor, type CachedStoreOptions } from './options.js';

/** A role wrapped, so that "not a member" (undefined) is a value the cache keeps rather than a miss. */
interface RoleAnswer {
  role: string | undefined;
}

export class CachedMembershipStore implements MembershipStore {
  private readonly cache: HotCache<RoleAnswer>;

  constructor(
    readonly inner: MembershipStore,
    private readonly bus: InvalidationBus,
    options: CachedStoreOptions = {},
  ) {
    this.cache = hotCacheFor(bus, 'CachedMembershipStore', options);
  }

  async createTenant(input: { name: string; ownerId: string; role: string }): Promise<Tenant> {
    const tenant = await this.inner.createTenant(input);
    await this.bus.publish(membershipTopic(tenant.id, input.ownerId));
    return tenant;
  }

  getTenant(id: string): Promise<Tenant | undefined> {
    return this.inner.getTenant(id);
  }

  async roleOf(tenantId: string, userId: string): Promise<string | undefined> {
    const topic = membershipTopic(tenantId, userId);
    // A hit builds no loader: the hot path is one map lookup.
    const answer =
      this.cache.get(topic) ??
      (await this.cache.through(
        topic,
        async () => ({ role: await this.inner.roleOf(tenantId, userId) }),
        () => [topic],
      ));
    return answer.role;
  }

  tenantsOf(userId: string): Promise<TenantOfMember[]> {
    return this.inner.tenantsOf(userId);
  }

  members(tenantId: string): Promise<Membership[]> {
    return this.inner.members(tenantId);
  }

  membership(tenantId: string, userId: string): Promise<Membership | undefined> {
    return this.inner.membership(tenantId, userId);
  }

  addMember(
    tenantId: string,
    userId: string,
    role: string,
    rules?: MembershipAdditionRules,
  ): Promise<MembershipAddition> {
    return this.publishedIfDone(this.inner.addMember(tenantId, userId, role, rules), tenantId, userId);
  }

  setRole(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipChange> {
    return this.publishedIfDone(this.inner.setRole(tenantId, userId, role, rules), tenantId, userId);
  }

  removeMember(tenantId: string, userId: string, rules: MembershipChangeRules): Promise<MembershipRemoval> {
    return this.publishedIfDone(this.inner.removeMember(tenantId, userId, rules), tenantId, userId);
  }

  /** A change the store made is published before it answers; a refused one changed nothing to publish. */
  private async publishedIfDone<R extends { ok: boolean }>(
    change: Promise<R>,
    tenantId: string,
    userId: string,
  ): Promise<R> {
    const result = await change;
    if (result.ok) await this.bus.publish(membershipTopic(tenantId, userId));
    return result;
  }

  /** Stops listening to the bus and forgets what it cached. */
  close(): void {
    this.cache.close();
  }
}
