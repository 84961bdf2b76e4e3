// `fileRoutes(options)` or `fileRoutes(files, options)`: the handlers of the routes spec/modules/files.yaml declares, bound to the
// generated definitions. Every route but the temporary-URL target acts for the signed-in caller in the
// request's tenant (`files.forContext(context)`), reaches only the files the policy lets it (policy.ts) and
// answers the public projection, or what `present` makes of a file. The upload route is opt-in and takes its
// multipart limits from `upload`; the content route goes with `download: false`; any route can be omitted
// or replaced one by one.
import { routeDefinitions, type Handlers as FilesHandlers } from '../../../generated/modules/files/routes.js';
import type { PublicFile } from '../../../generated/modules/files/types.js';
import { bindRoutes, type RouteDefinition } from '../../http/route.js';
import type { RequestContext, Route } from '../../http/types.js';
import { upload } from '../../http/upload/index.js';
import { toPublicFile, type FileRecord } from '../record.js';
import { registeredFileService } from '../registered-service.js';
import { invalidOption } from '../../config/option-errors.js';
import type { FileService } from '../service/api.js';
import { contentReply } from './content-reply.js';
import { privateNoStore } from './private-no-store.js';
import { callerOf, filePolicy, type FileAction, type FileCaller } from './policy.js';
import {
  checkFileRoutesOptions,
  type CheckedFileRoutesOptions,
  type FileRoutesOptions,
} from './route-options.js';
import { createFileUrl, openFileUrl } from './signed-url-route.js';
import { uploadParts } from './upload-route.js';

export type { FileRoutesOptions };

/** Routes whose answers describe files: written by the generated serializers unless `present` shapes them. */
const PRESENTING_ROUTES = new Set(['listFiles', 'getFile', 'uploadFiles']);

const OWNER = 'fileRoutes()';

/** Which file service a request is served by. */
type ServiceOf = (context: RequestContext) => FileService;

/**
 * The file routes. `fileRoutes(options)` serves the app's file service (filesPlugin's, found in the app's
 * container on each request); `fileRoutes(files, options)` serves the service given.
 */
export function fileRoutes(options?: FileRoutesOptions): Route[];
export function fileRoutes(files: FileService, options?: FileRoutesOptions): Route[];
export function fileRoutes(first?: FileService | FileRoutesOptions, second?: FileRoutesOptions): Route[] {
  const given = isFileService(first) ? first : undefined;
  // Options in second place need the service in first: anything else there is a mistake, not options.
  if (given === undefined && second !== undefined) {
    throw invalidOption(OWNER, 'files', 'a file service (createFileService()) when options follow it');
  }
  const options =
    given === undefined ? ((first === undefined ? {} : first) as FileRoutesOptions) : (second ?? {});
  const serviceOf: ServiceOf =
    given === undefined ? (context) => registeredFileService(context, OWNER) : () => given;
  const checked = checkFileRoutesOptions(options);
  const handlers: FilesHandlers = { ...fileHandlers(serviceOf, checked), ...checked.replace };
  const definitions = routeDefinitions.flatMap((definition) => shaped(definition, checked));
  return bindRoutes(definitions, handlers);
}

/** The definition as the options make it, or none when it is left out. */
function shaped(definition: RouteDefinition, options: CheckedFileRoutesOptions): RouteDefinition[] {
  const { id } = definition;
  if (options.omit.has(id)) return [];
  if (id === 'downloadFile' && !options.download) return [];
  let result = definition;
  if (id === 'uploadFiles') {
    if (options.upload === undefined) return [];
    // The route's allowedTypes are the file service's to apply, on the stored (detected) type: the reader
    // sees only the declared one.
    const { allowedTypes: _allowedTypes, ...limits } = options.upload;
    result = { ...result, body: upload(limits) };
  }
  // The app's own shape is its business: the module's serializers would drop what it adds.
  if (options.present !== undefined && PRESENTING_ROUTES.has(id) && !(id in options.replace)) {
    const { serializers: _serializers, responseValidators: _validators, ...rest } = result;
    result = rest as RouteDefinition;
  }
  return [result];
}

function isFileService(value: unknown): value is FileService {
  const candidate = value as Partial<FileService> | null | undefined;
  return typeof candidate?.forContext === 'function' && typeof candidate.upload === 'function';
}

function fileHandlers(serviceOf: ServiceOf, options: CheckedFileRoutesOptions): FilesHandlers {
  const policy = filePolicy(options);
  const present = async (record: FileRecord, user: FileCaller): Promise<PublicFile> =>
    options.present === undefined
      ? toPublicFile(record)
      : ((await options.present(record, user)) as PublicFile);

  /** The file, when the caller may do `action` on it; else FILE_NOT_FOUND, as for a missing one. */
  const reachable = async (context: RequestContext, id: string, action: FileAction) => {
    const user = callerOf(context);
    const scoped = serviceOf(context).forContext(context);
    const record = await scoped.get(id);
    await policy.require(action, record, user);
    return { user, scoped, record };
  };

  return {
    async listFiles({ context }) {
      const user = callerOf(context);
      const scoped = serviceOf(context).forContext(context);
      const records = await scoped.list(undefined, policy.listFilter(user));
      const allowed = await Promise.all(records.map((record) => policy.allows('read', record, user)));
      const visible = records.filter((_, index) => allowed[index]);
      return { items: await Promise.all(visible.map((record) => present(record, user))) };
    },

    async getFile({ params, context }) {
      const { user, record } = await reachable(context, params.id, 'read');
      return present(record, user);
    },

    async downloadFile({ params, context, reply }) {
      privateNoStore(reply);
      const { scoped, record } = await reachable(context, params.id, 'download');
      return contentReply({ files: scoped, id: record.id, disposition: 'attachment' });
    },

    async uploadFiles({ body, context }) {
      const user = callerOf(context);
      const created = await uploadParts(serviceOf(context).forContext(context), body, {
        uploadedBy: user.id,
        maxBytes: options.upload?.maxFileBytes,
        allowedTypes: options.upload?.allowedTypes,
      });
      return { items: await Promise.all(created.map((record) => present(record, user))) };
    },

    async createFileUrl({ params, body, context, reply }) {
      privateNoStore(reply);
      const { scoped, record } = await reachable(context, params.id, 'url');
      return createFileUrl(scoped, record.id, body, options.maxUrlSeconds);
    },

    async deleteFile({ params, context }) {
      const { scoped, record } = await reachable(context, params.id, 'delete');
      await scoped.delete(record.id);
      return undefined;
    },

    async openFileUrl({ params, query, context, reply }) {
      privateNoStore(reply);
      return openFileUrl(serviceOf(context), params.id, query);
    },
  };
}
