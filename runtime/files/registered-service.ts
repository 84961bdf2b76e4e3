// The app's file service in its container: filesPlugin provides it; `filesOf(context)` in a handler and the
// routes of `fileRoutes(options)` (made without a service) find it there on each request.
import type { RequestContext } from '../http/types.js';
import type { FileService } from './service/api.js';

/** The container token of the app's file service. */
export const FILE_SERVICE: unique symbol = Symbol.for('svckit.files.service');

/** The file service the app registered; `owner` names the caller in the error when there is none. */
export function registeredFileService(context: RequestContext, owner: string): FileService {
  const files = context.container?.get<FileService>(FILE_SERVICE);
  if (files === undefined) throw new Error(`${owner}: no file service: register filesPlugin().`);
  return files;
}
