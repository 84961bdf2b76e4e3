// Entry of `svc start`: read the configuration from the environment, build the app, listen.
import { serve } from 'svckit/core';
import { loadConfig } from '../generated/config.js';
import { buildApp } from './app.js';

const config = loadConfig();
await serve(await buildApp(config), config.server);
