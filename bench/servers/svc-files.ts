// svc's file routes on Fastify: POST /files (multipart, one file of up to 2 GiB, the caller's bearer token)
// stores through the file service's policy, validation, sniffing and localDisk; GET /files/:id/content
// streams a stored file back. The upload and the download benches both run against this one process.
import { UPLOAD_MAX_BYTES } from './upload-target.js';
import { startFilesBenchServer } from './svc-files-app.js';

await startFilesBenchServer({ routes: { upload: { maxBytes: UPLOAD_MAX_BYTES, maxFiles: 1 } } });
