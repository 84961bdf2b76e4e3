// The file service filesPlugin hands out before the app boots. Whether tenants are required depends on
// whether the app registers tenancy, which is known only once every plugin is set up; handlers and routes
// are made earlier. So the plugin hands out this stand-in, which forwards every call to the service it makes
// at boot. Subscriptions made before then are kept and attached when it exists.
import type { Disk } from './disks/disk.js';
import type { FileEventName, FileEventPayloads, FileService } from './service/api.js';

type Subscription = {
  event: FileEventName;
  handler: (payload: never) => void | Promise<void>;
  detach?: () => void;
  cancelled: boolean;
};

export interface DeferredFileService {
  /** The stand-in: usable now, working once `resolve` was called. */
  readonly service: FileService;
  resolve(service: FileService): void;
}

/** `owner` names who makes the service in the error a too-early call gets. */
export function deferredFileService(disk: Disk, requireScan: boolean, owner: string): DeferredFileService {
  let real: FileService | undefined;
  const pending: Subscription[] = [];
  // Operations answering promises reject (never throw) when called too early, like any failure of theirs.
  const current = (): FileService => {
    if (real !== undefined) return real;
    throw new Error(
      `${owner}: the file service is used before the app booted; call it from handlers or hooks.`,
    );
  };

  const service: FileService = {
    disk,
    requireScan,
    upload: async (content, input) => current().upload(content, input),
    download: async (id, tenantId, options) => current().download(id, tenantId, options),
    downloadStream: async (id, tenantId, options) => current().downloadStream(id, tenantId, options),
    temporaryUrl: async (id, expiresIn, tenantId, options) =>
      current().temporaryUrl(id, expiresIn, tenantId, options),
    openTemporaryUrl: async (query) => current().openTemporaryUrl(query),
    get: async (id, tenantId) => current().get(id, tenantId),
    list: async (tenantId, filter) => current().list(tenantId, filter),
    delete: async (id, tenantId) => current().delete(id, tenantId),
    markScanned: async (id, result, tenantId) => current().markScanned(id, result, tenantId),
    noteScanProblem: async (id, reason, tenantId) => current().noteScanProblem(id, reason, tenantId),
    canStreamDownloads: () => current().canStreamDownloads(),
    sniffContentType: async (bytes) => current().sniffContentType(bytes),
    toPublicFile: (record) => current().toPublicFile(record),
    forContext: (context) => current().forContext(context),
    on<E extends FileEventName>(
      event: E,
      handler: (payload: FileEventPayloads[E]) => void | Promise<void>,
    ): () => void {
      if (real !== undefined) return real.on(event, handler);
      const subscription: Subscription = {
        event,
        handler: handler as Subscription['handler'],
        cancelled: false,
      };
      pending.push(subscription);
      return () => {
        subscription.cancelled = true;
        subscription.detach?.();
      };
    },
  };

  return {
    service,
    resolve(made) {
      if (real !== undefined) throw new Error(`${owner}: the file service was made already.`);
      real = made;
      for (const subscription of pending.splice(0)) {
        if (subscription.cancelled) continue;
        subscription.detach = made.on(
          subscription.event,
          subscription.handler as (payload: FileEventPayloads[FileEventName]) => void,
        );
      }
    },
  };
}
