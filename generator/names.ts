// Names of generated TypeScript types, shared by every emitter that refers to them (types.ts, routes.ts,
// client.ts). Resources keep their spec name; route parts are the route id in PascalCase plus a suffix.

export function pascalCase(id: string): string {
  return id.charAt(0).toUpperCase() + id.slice(1);
}

export const routeTypeNames = (routeId: string) => {
  const base = pascalCase(routeId);
  return {
    params: `${base}Params`,
    query: `${base}Query`,
    body: `${base}Body`,
    /** Text fields of an upload body: `UploadAvatarFields`. */
    fields: `${base}Fields`,
    /** Body schema of one response status: `GetNoteResponse200`. */
    response: (status: string | number) => `${base}Response${status}`,
    /** Union of the success (2xx) response bodies: what the handler returns. */
    result: `${base}Result`,
  };
};
