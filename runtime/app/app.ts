// The application kernel: plugins register in order, set up (publish to metadata buckets, hooks and the
// container), then boot (adapters read the buckets and refuse misconfiguration), then `app:booted` fires.
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { defaultLogger } from '../log/json-logger.js';
import { isLogger, type Logger } from '../log/logger.js';
import { Scope } from './container.js';
import { Hooks } from './hooks.js';
import { Metadata } from './metadata.js';

export interface Plugin {
  readonly name: string;
  /** Runs first, in registration order: publish routes, enrichers, guards, claims, services. */
  setup?(app: App): void | Promise<void>;
  /** Runs after every plugin's setup, in registration order: read what the others published. */
  boot?(app: App): void | Promise<void>;
}

export interface ListenOptions {
  port?: number;
  host?: string;
}

export interface ListeningAddress {
  url: string;
  host: string;
  port: number;
  /** The server framework answering ('fastify', 'express', 'hono'), printed at start-up. */
  adapter?: string;
}

/** What an adapter plugin provides so the app can listen and close. */
export interface HttpServer {
  listen(options: Required<ListenOptions>): Promise<ListeningAddress>;
  close(): Promise<void>;
}

export interface AppOptions {
  name?: string;
  version?: string;
  /**
   * Where svckit's own lines go (request failures, warnings, store and exporter trouble); every plugin
   * reaches it as `app.logger`. Default: JSON lines on stderr (runtime/log/json-logger.ts).
   */
  logger?: Logger;
}

/** The keys of ListenOptions; any other is refused. */
const LISTEN_OPTIONS = optionKeys<ListenOptions>({
  port: true,
  host: true,
});
/** The keys of AppOptions; any other is refused. */
const APP_OPTIONS = optionKeys<AppOptions>({ name: true, version: true, logger: true });

export class App {
  readonly name: string;
  readonly version: string;
  readonly logger: Logger;
  readonly metadata = new Metadata();
  readonly hooks = new Hooks();
  readonly container = new Scope();
  private readonly plugins: Plugin[] = [];
  private server: HttpServer | undefined;
  private booting: Promise<void> | undefined;
  private closed = false;

  constructor(options: AppOptions = {}) {
    rejectUnknownOptions(options, APP_OPTIONS, 'App');
    this.name = options.name ?? 'svc';
    this.version = options.version ?? '0.0.0';
    const logger = options.logger ?? defaultLogger;
    if (!isLogger(logger)) throw invalidOption('App', 'logger', 'a Logger with debug, info, warn and error');
    this.logger = logger;
  }

  register(plugin: Plugin): this {
    if (this.booting)
      throw new Error(`Plugin "${plugin.name}" was registered after the app started booting.`);
    this.plugins.push(plugin);
    return this;
  }

  /** Called by an adapter plugin during setup; one app serves through one adapter. */
  setServer(server: HttpServer): void {
    if (this.server) throw new Error('An HTTP adapter is already registered on this app.');
    this.server = server;
  }

  get booted(): boolean {
    return this.booting !== undefined;
  }

  /** Runs setup and boot of every plugin once, then emits app:booted. Later calls return the same promise. */
  boot(): Promise<void> {
    this.booting ??= this.runBoot();
    return this.booting;
  }

  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    rejectUnknownOptions(options, LISTEN_OPTIONS, 'app.listen()');
    await this.boot();
    if (!this.server) throw new Error('No HTTP adapter is registered: register fastifyPlugin({ routes }).');
    const address = await this.server.listen({
      port: options.port ?? 3000,
      host: options.host ?? '127.0.0.1',
    });
    await this.hooks.emit('app:listening', { app: this, url: address.url });
    return address;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.hooks.emit('app:closing', { app: this });
    await this.server?.close();
    await this.hooks.emit('app:closed', { app: this });
  }

  private async runBoot(): Promise<void> {
    for (const plugin of this.plugins) await plugin.setup?.(this);
    for (const plugin of this.plugins) await plugin.boot?.(this);
    await this.hooks.emit('app:booted', { app: this });
  }
}

export function createApp(options: AppOptions = {}): App {
  rejectUnknownOptions(options, APP_OPTIONS, 'createApp()');
  return new App(options);
}
