// Named metadata buckets: how plugins publish routes, enrichers, guards and claims to each other without
// importing each other. Other modules add their buckets by augmenting `MetadataBuckets`.
import type {
  Enricher,
  Guard,
  GuardedMetaClaim,
  MetaValidator,
  Route,
  RouteVisibilityCheck,
} from '../http/types.js';

export interface MetadataBuckets {
  'http:routes': Route;
  'http:enrichers': Enricher;
  'http:guards': Guard;
  'http:guarded-meta': GuardedMetaClaim;
  'http:meta-validators': MetaValidator;
  'http:route-visibility': RouteVisibilityCheck;
}

export type BucketName = keyof MetadataBuckets;

export class Metadata {
  private readonly buckets = new Map<BucketName, unknown[]>();

  add<B extends BucketName>(bucket: B, ...items: MetadataBuckets[B][]): void {
    let list = this.buckets.get(bucket);
    if (!list) this.buckets.set(bucket, (list = []));
    list.push(...items);
  }

  list<B extends BucketName>(bucket: B): readonly MetadataBuckets[B][] {
    return (this.buckets.get(bucket) ?? []) as MetadataBuckets[B][];
  }
}
