// `fileRoutes(files, options)`: the handlers of the routes spec/modules/files.yaml declares, bound to the
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
import type { FileRecord } from '../record.js';
import type { FileService } from '../service/api.js';
import { contentReply } from './content-reply.js';
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

export function fileRoutes(files: FileService, options: FileRoutesOptions = {}): Route[] {
  const checked = checkFileRoutesOptions(options);
  const handlers: FilesHandlers = { ...fileHandlers(files, checked), ...checked.replace };
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
    result = { ...result, body: upload(options.upload) };
  }
  // The app's own shape is its business: the module's serializers would drop what it adds.
  if (options.present !== undefined && PRESENTING_ROUTES.has(id) && !(id in options.replace)) {
    const { serializers: _serializers, responseValidators: _validators, ...rest } = result;
    result = rest as RouteDefinition;
  }
  return [result];
}

function fileHandlers(files: FileService, options: CheckedFileRoutesOptions): FilesHandlers {
  const policy = filePolicy(options);
  const present = async (record: FileRecord, user: FileCaller): Promise<PublicFile> =>
    options.present === undefined
      ? files.toPublicFile(record)
      : ((await options.present(record, user)) as PublicFile);

  /** The file, when the caller may do `action` on it; else FILE_NOT_FOUND, as for a missing one. */
  const reachable = async (context: RequestContext, id: string, action: FileAction) => {
    const user = callerOf(context);
    const scoped = files.forContext(context);
    const record = await scoped.get(id);
    await policy.require(action, record, user);
    return { user, scoped, record };
  };

  return {
    async listFiles({ context }) {
      const user = callerOf(context);
      const records = await files.forContext(context).list(undefined, policy.listFilter(user));
      const allowed = await Promise.all(records.map((record) => policy.allows('read', record, user)));
      const visible = records.filter((_, index) => allowed[index]);
      return { items: await Promise.all(visible.map((record) => present(record, user))) };
    },

    async getFile({ params, context }) {
      const { user, record } = await reachable(context, params.id, 'read');
      return present(record, user);
    },

    async downloadFile({ params, context }) {
      const { scoped, record } = await reachable(context, params.id, 'download');
      return contentReply({ files: scoped, id: record.id, disposition: 'attachment' });
    },

    async uploadFiles({ body, context }) {
      const user = callerOf(context);
      const created = await uploadParts(files.forContext(context), body, {
        uploadedBy: user.id,
        maxBytes: options.upload?.maxFileBytes,
      });
      return { items: await Promise.all(created.map((record) => present(record, user))) };
    },

    async createFileUrl({ params, body, context }) {
      const { scoped, record } = await reachable(context, params.id, 'url');
      return createFileUrl(scoped, record.id, body, options.maxUrlSeconds);
    },

    async deleteFile({ params, context }) {
      const { scoped, record } = await reachable(context, params.id, 'delete');
      await scoped.delete(record.id);
      return undefined;
    },

    async openFileUrl({ params, query }) {
      return openFileUrl(files, params.id, query);
    },
  };
}
