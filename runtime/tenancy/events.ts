// The tenancy module's events on the application hook bus, raised after the change they describe was made.
// `by` is the account that made the change (the member itself when it left).

export interface TenancyEventPayloads {
  /** A team was created; `userId` is its creator, who holds `role` (the owner role). */
  'tenant:created': { tenant: { id: string; name: string }; userId: string; role: string };
  'tenant:member_added': { tenantId: string; userId: string; role: string; by: string };
  'tenant:member_role_changed': {
    tenantId: string;
    userId: string;
    role: string;
    previousRole: string;
    by: string;
  };
  /** A member was removed, or left (then `by` is the member's own id). */
  'tenant:member_removed': { tenantId: string; userId: string; by: string };
}

export type TenancyEventName = keyof TenancyEventPayloads;

/** Every tenancy event, for forwarding or listing. */
export const TENANCY_EVENT_NAMES: readonly TenancyEventName[] = [
  'tenant:created',
  'tenant:member_added',
  'tenant:member_role_changed',
  'tenant:member_removed',
];

declare module '../app/hooks.js' {
  // Declaration merging: the tenancy events join the hook bus's typed event map.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HookEvents extends TenancyEventPayloads {}
}
