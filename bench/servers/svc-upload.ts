// svc on Fastify with the streamed upload route of bench/spec (POST /upload, `upload({ maxBytes: 2 GiB,
// maxFiles: 1 })`): each file goes to disk as it arrives.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createApp } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { announce } from './shared.js';
import { benchRoutes } from './svc-routes.js';
import { uploadPath } from './upload-target.js';

const app = createApp({ name: 'bench-upload' });
app.register(
  fastifyPlugin({
    routes: benchRoutes({
      uploadFile: async ({ body }) => {
        let bytes = 0;
        for await (const file of body.files) {
          const target = createWriteStream(uploadPath());
          await pipeline(file.stream, target);
          bytes += target.bytesWritten;
        }
        return { bytes };
      },
    }),
  }),
);
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
announce(url);
