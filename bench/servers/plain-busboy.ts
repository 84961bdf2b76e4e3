// node:http + busboy, streaming the uploaded file to disk: the baseline svc's upload() is measured against.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { serveBusboyUploads } from './plain-busboy-server.js';
import { uploadPath } from './upload-target.js';

serveBusboyUploads(async (file) => {
  const target = createWriteStream(uploadPath());
  await pipeline(file, target);
  return target.bytesWritten;
});
