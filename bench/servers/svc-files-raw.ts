// The file service without its routes: the bench spec's POST /upload hands each file part straight to
// `files.upload(stream, { name, contentType })` (validation, sniffing, checksum, localDisk) and answers
// `{ bytes }` like plain busboy. What the file routes add on top (auth, policy, the public projection) is the
// difference with svc-files.ts.
import { startFilesBenchServer } from './svc-files-app.js';
import { benchRoutes } from './svc-routes.js';

await startFilesBenchServer({
  routes: false,
  appRoutes: (files) =>
    benchRoutes({
      uploadFile: async ({ body }) => {
        let bytes = 0;
        for await (const file of body.files) {
          const record = await files.upload(file.stream, {
            name: file.filename,
            contentType: file.declaredType,
          });
          bytes += record.size;
        }
        return { bytes };
      },
    }),
});
