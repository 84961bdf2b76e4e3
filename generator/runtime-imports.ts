// Where generated files import the runtime from. Applications import the published package ('svckit',
// 'svckit/validation-runtime'); svckit's own generated/modules import its sources by relative path, because
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
}

/**
 * `runtimeImport` is a package name ('svckit', the default) or a relative path from the output folder to
 * svckit's runtime/ folder ('../../runtime' for generated/modules/).
 */
export function runtimeImports(runtimeImport: string): RuntimeImports {
  if (!runtimeImport.startsWith('.') && !runtimeImport.startsWith('/')) {
    return {
      main: runtimeImport,
      errors: runtimeImport,
      types: runtimeImport,
      config: runtimeImport,
      validationRuntime: `${runtimeImport}/validation-runtime`,
    };
  }
  const dir = runtimeImport.replace(/\/+$/, '');
  return {
    main: `${dir}/index.js`,
    errors: `${dir}/http/errors.js`,
    types: `${dir}/http/types.js`,
    config: `${dir}/config/index.js`,
    validationRuntime: `${dir}/http/validation-runtime.js`,
  };
}
