// What `modules.files` decides about the routes the build documents. The structure of the settings is
// checked against svc.schema.json; here: the files routes need a signed-in caller, so the module needs
// `modules.auth`; `routes.upload` (a mapping) turns POST /files on and its limits replace the module spec's
// in the application's openapi.json and client; `routes.download: false` leaves the content route out;
// the other keys of `routes` that are settings rather than route ids; and the URL lifetime bound.
import { parseDuration } from '../../shared/duration.js';
import { FILES_ROUTE_SETTINGS, filesUploadLimits, MAX_URL_TTL_MS } from '../../shared/files-upload.js';
import type { RouteIR, SpecIR } from '../../shared/ir.js';
import { parseSize } from '../../shared/size.js';
import { asMap, asScalar, entry, type LoadContext } from './context.js';
import type { MapNode, Node } from './yaml-tree.js';

export { FILES_ROUTE_SETTINGS };

/** The settings of `modules.files` that decide documents must be written out: a `${VAR}` there is refused. */
const DOCUMENTED = ['upload', 'download'];

/** Problems of `modules.files` beyond its structure; `modules` is the whole `modules:` mapping. */
export function checkFilesModule(ctx: LoadContext, modules: MapNode, files: MapEntryLike): void {
  if (!isOnNode(entry(modules, 'auth'))) {
    ctx.problems.add(
      files.keyLoc,
      ['modules', 'files'],
      'modules.files needs the auth module, which this spec does not enable: its routes act for the signed-in caller',
      'enable it with modules: { auth: true }, next to files',
    );
  }
  checkDisk(ctx, asMap(entry(asMap(files.value), 'disk')));
  const scan = asScalar(entry(asMap(files.value), 'scan'));
  if (scan !== undefined && scan.template === undefined && typeof scan.value === 'string') {
    if (scan.value !== '' && !scan.value.startsWith('clamd://')) {
      ctx.problems.add(
        scan.loc,
        ['modules', 'files', 'scan'],
        `modules.files.scan: expected clamd://host:port or clamd:///path/to/socket but got ${JSON.stringify(scan.value)}`,
        'write e.g. scan: clamd://127.0.0.1:3310, or leave it empty for no scanning',
      );
    }
  }
  const routes = asMap(entry(asMap(files.value), 'routes'));
  for (const key of DOCUMENTED) {
    const node = asScalar(entry(routes, key));
    if (node?.template === undefined) continue;
    ctx.problems.add(
      node.loc,
      ['modules', 'files', 'routes', key],
      `modules.files.routes.${key} decides which routes the build documents, so it cannot be a \${VAR} resolved at start`,
      key === 'upload'
        ? 'write false, or a mapping { maxBytes, maxFiles, allowedTypes }'
        : 'write true or false',
    );
  }
  const ttl = asScalar(entry(routes, 'maxUrlTtl'));
  if (ttl !== undefined && ttl.template === undefined && !ttl.broken) {
    const ms = parseDuration(ttl.value);
    if (ms !== undefined && (ms < 1000 || ms > MAX_URL_TTL_MS)) {
      ctx.problems.add(
        ttl.loc,
        ['modules', 'files', 'routes', 'maxUrlTtl'],
        `modules.files.routes.maxUrlTtl: expected a duration from 1s to 7d but got ${JSON.stringify(ttl.value)}`,
        'write e.g. maxUrlTtl: 1h',
      );
    }
  }
  const upload = asMap(entry(routes, 'upload'));
  if (
    upload !== undefined &&
    uploadLimitsOf(upload) === undefined &&
    uploadSettingsOf(upload) !== undefined
  ) {
    ctx.problems.add(
      upload.loc,
      ['modules', 'files', 'routes', 'upload'],
      'modules.files.routes.upload: maxBytes × maxFiles is too large for a request size',
      'lower maxBytes or maxFiles',
    );
  }
}

/** The route ids `modules.files` leaves out through its settings (not `routes.<id>: false`). */
export function filesRoutesOff(options: MapNode | undefined): Set<string> {
  const off = new Set<string>();
  const routes = asMap(entry(options, 'routes'));
  if (asMap(entry(routes, 'upload')) === undefined) off.add('uploadFiles');
  if (asScalar(entry(routes, 'download'))?.value === false) off.add('downloadFile');
  return off;
}

/** The files module spec with the upload route's limits taken from `routes.upload`. */
export function withFilesSettings(spec: SpecIR, options: MapNode | undefined): SpecIR {
  const upload = asMap(entry(asMap(entry(options, 'routes')), 'upload'));
  const limits = upload === undefined ? undefined : uploadLimitsOf(upload);
  if (limits === undefined) return spec;
  const shaped = (route: RouteIR): RouteIR =>
    route.id === 'uploadFiles' && route.body?.kind === 'upload'
      ? { ...route, body: { ...route.body, limits } }
      : route;
  return { ...spec, routes: spec.routes.map(shaped) };
}

/** `root` belongs to the local driver, `maxBytes` to the memory one. */
function checkDisk(ctx: LoadContext, disk: MapNode | undefined): void {
  const driver = asScalar(entry(disk, 'driver'))?.value;
  const misplaced = driver === 'memory' ? 'root' : driver === 'local' ? 'maxBytes' : undefined;
  const item = misplaced === undefined ? undefined : disk?.byKey.get(misplaced);
  if (item === undefined || misplaced === undefined) return;
  ctx.problems.add(
    item.keyLoc,
    ['modules', 'files', 'disk', misplaced],
    `modules.files.disk.${misplaced} means nothing to the ${String(driver)} driver`,
    misplaced === 'root' ? 'remove root, or write driver: local' : 'remove maxBytes, or write driver: memory',
  );
}

interface MapEntryLike {
  keyLoc: MapNode['loc'];
  value: Node;
}

function uploadSettingsOf(upload: MapNode) {
  const maxBytes = parseSize(asScalar(entry(upload, 'maxBytes'))?.value);
  if (maxBytes === undefined || maxBytes < 1) return undefined;
  const maxFiles = asScalar(entry(upload, 'maxFiles'))?.value;
  const typesNode = entry(upload, 'allowedTypes');
  const allowedTypes =
    typesNode?.kind === 'seq'
      ? typesNode.items.map((item) => asScalar(item)?.value).filter((type) => typeof type === 'string')
      : undefined;
  return {
    maxBytes,
    ...(typeof maxFiles === 'number' ? { maxFiles } : {}),
    ...(allowedTypes === undefined ? {} : { allowedTypes }),
  };
}

function uploadLimitsOf(upload: MapNode) {
  const settings = uploadSettingsOf(upload);
  return settings === undefined ? undefined : filesUploadLimits(settings);
}

/** `true` or a mapping (or a `${VAR}`, which may turn it on at start). */
function isOnNode(node: Node | undefined): boolean {
  if (node === undefined) return false;
  if (node.kind === 'map') return true;
  return node.kind === 'scalar' && (node.value === true || node.template !== undefined);
}
