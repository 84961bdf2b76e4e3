// Where generated files import the runtime from. Applications import the published package's kernel entry
// ('svckit/core', 'svckit/validation-runtime'), so an app loads only the features it imports itself; svckit's own generated/modules import its sources by relative path, because
// the runtime itself imports those modules and a package self-import would not resolve from dist/.

export interface RuntimeImports {
  /** bindRoutes, Route, RouteDefinition, RouteHandler, resolveSvcConfig. */
  main: string;
  /** HttpError, BootError, ErrorCatalogEntry, ErrorFactoryOptions. */
  errors: string;
  /** CompiledValidator. */
  types: string;
  /** resolveSvcConfig, SvcConfig. */
  config: string;
  /** requireRuntime, for validators.js. */
  validationRuntime: string;
  /** composeService, startService, for service.ts. */
  service: string;
  /** Where routes.ts takes each runtime name from (`imported` when the defining file names it otherwise). */
  routeName(name: string): { from: string; imported?: string };
}

/**
 * The file of svckit's runtime/ that defines each name routes.ts may use. Relative imports name the defining
 * file, never runtime/index.js: the runtime imports svckit's own generated/modules/<module>/routes.ts, and
 * going through the index from there would be an import cycle.
 */
const ROUTE_NAME_FILES: Record<string, { file: string; imported?: string }> = {
  bindRoutes: { file: 'http/route.js' },
  RouteDefinition: { file: 'http/route.js' },
  Route: { file: 'http/types.js' },
  RouteHandler: { file: 'http/types.js' },
  UploadInput: { file: 'http/types.js' },
  RawBodyInput: { file: 'http/types.js' },
  upload: { file: 'http/upload/index.js' },
  rawBody: { file: 'http/raw-body.js' },
  StreamResult: { file: 'http/stream.js' },
  SseResult: { file: 'http/stream.js', imported: 'StreamResult' },
};

/**
 * `runtimeImport` is a package name ('svckit', the default) or a relative path from the output folder to
 * svckit's runtime/ folder ('../../runtime' for generated/modules/).
 */
export function runtimeImports(runtimeImport: string): RuntimeImports {
  if (!runtimeImport.startsWith('.') && !runtimeImport.startsWith('/')) {
    const core = `${runtimeImport}/core`;
    return {
      main: core,
      errors: core,
      types: core,
      config: core,
      validationRuntime: `${runtimeImport}/validation-runtime`,
      service: `${runtimeImport}/service`,
      routeName: () => ({ from: core }),
    };
  }
  const dir = runtimeImport.replace(/\/+$/, '');
  return {
    main: `${dir}/index.js`,
    errors: `${dir}/http/errors.js`,
    types: `${dir}/http/types.js`,
    config: `${dir}/config/index.js`,
    validationRuntime: `${dir}/http/validation-runtime.js`,
    service: `${dir}/service/index.js`,
    routeName: (name) => {
      const known = ROUTE_NAME_FILES[name];
      if (!known) throw new Error(`routes.ts uses '${name}', which runtime-imports.ts does not place`);
      return { from: `${dir}/${known.file}`, ...(known.imported ? { imported: known.imported } : {}) };
    },
  };
}
