// Who may reach a stored file through the file routes. By default only its uploader (owner-only); `shared`
// makes the tenant's files a drive every member reaches; an application's `authorize` replaces both. A file
// the caller may not reach answers exactly as a missing one (404 FILE_NOT_FOUND), so its existence is not
// revealed, and is absent from the list.
import { errors } from '../../../generated/modules/errors.js';
import type { RequestContext } from '../../http/types.js';
import type { FileRecord } from '../record.js';

/** What the caller wants to do with a file. */
export type FileAction = 'read' | 'download' | 'url' | 'delete';

/** The signed-in caller as the auth enricher put it on the request: at least its id. */
export interface FileCaller {
  readonly id: string;
  readonly [key: string]: unknown;
}

/** Replaces the built-in policy: true lets the caller act on the file, false answers 404. */
export type FileAuthorize = (
  action: FileAction,
  record: FileRecord,
  user: FileCaller,
) => boolean | Promise<boolean>;

export interface FilePolicy {
  /** Whether `user` may do `action` on `record`. */
  allows(action: FileAction, record: FileRecord, user: FileCaller): Promise<boolean>;
  /** What the store may filter the list by for `user` before `allows` runs: owner-only lists their files only. */
  listFilter(user: FileCaller): { uploadedBy?: string };
  /** The same, throwing FILE_NOT_FOUND when not. */
  require(action: FileAction, record: FileRecord, user: FileCaller): Promise<void>;
}

/** The policy of fileRoutes(): `authorize` when given, else shared (tenant-wide) or owner-only. */
export function filePolicy(options: { shared?: boolean; authorize?: FileAuthorize }): FilePolicy {
  const { authorize } = options;
  const shared = options.shared === true;
  const allows = async (action: FileAction, record: FileRecord, user: FileCaller): Promise<boolean> => {
    // Only `true` grants: a policy that answers anything else (undefined from a forgotten return) refuses.
    if (authorize !== undefined) return (await authorize(action, record, user)) === true;
    return shared || (record.uploadedBy !== undefined && record.uploadedBy === user.id);
  };
  return {
    allows,
    listFilter: (user) => (authorize === undefined && !shared ? { uploadedBy: user.id } : {}),
    async require(action, record, user) {
      if (!(await allows(action, record, user))) throw errors.FILE_NOT_FOUND();
    },
  };
}

/** The signed-in caller; AUTH_REQUIRED when the request carries none (the auth guard normally refused it). */
export function callerOf(context: RequestContext): FileCaller {
  const user = context.user;
  if (user !== null && typeof user === 'object') {
    const id = (user as { id?: unknown }).id;
    if (typeof id === 'string' && id !== '') return user as FileCaller;
  }
  throw errors.AUTH_REQUIRED();
}
