import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { AriClient as ChanWebsocketClient } from '../../voice/provider-media-clients';

export const ARI_USER = 'switchboard';
export const ARI_PASSWORD = 'ari-password-value';

/** An event step of a scripted call: after `afterMs`, Asterisk sends this event for the channel. */
export interface ScriptStep {
  afterMs: number;
  type: 'ChannelStateChange' | 'StasisStart' | 'ChannelDestroyed';
  state: string;
  cause?: number;
}

/** One REST request as Asterisk received it. */
export interface AriRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

interface FakeChannel {
  id: string;
  name: string;
  app: string;
  args: string[];
  state: string;
  created: number;
  /** Entered the Stasis app (StasisStart sent): only then can it join a bridge. */
  inStasis: boolean;
  /** A chan_websocket channel's connection to the remote app. */
  media?: ChanWebsocketClient;
}

export const ariTime = (ms = Date.now()): string => new Date(ms).toISOString().replace('Z', '+0000');

/**
 * A local Asterisk speaking ARI (provider-wire-formats §7) over its real wire formats, Basic auth
 * checked everywhere:
 * - events: `/ari/events?app=` WebSockets, JSON text frames to every socket of the app;
 * - channels: originate (`POST /ari/channels/{id}`, then the called number's script as events),
 *   `GET`, `DELETE` (StasisEnd and ChannelDestroyed follow), `answer`, `GET /ari/channels`;
 * - bridges: `POST /ari/bridges/{id}` (create; an existing id answers 200, or 500 when a `type` is
 *   given, as Asterisk's create_with_id does), `addChannel` (404 no bridge, 400 no channel, 422 not
 *   in Stasis), `DELETE`, `GET /ari/bridges`;
 * - `POST /ari/channels/externalMedia` in chan_websocket client mode: `external_host` names a
 *   connection of `websocketClients` (websocket_client.conf), `transport_data`'s `v(…)` parameters
 *   are appended to its URI as a query, and the channel connects there as chan_websocket does
 *   (subprotocol `media`, MEDIA_START, ulaw audio), then enters Stasis; a refused connection
 *   destroys the channel with cause 3 (no route), as chan_websocket's failed call does.
 */
export class FakeAsterisk {
  readonly connections: WebSocket[] = [];
  readonly requests: AriRequest[] = [];
  /** websocket_client.conf: connection id → URI. */
  readonly websocketClients = new Map<string, string>();
  /** Upgrades to refuse with 503 before accepting again (Asterisk restarting). */
  refuseUpgrades = 0;
  refusedUpgrades = 0;
  /** The ARI user's password as ari.conf holds it now. */
  password = ARI_PASSWORD;
  readonly channels = new Map<string, FakeChannel>();
  readonly bridges = new Map<string, Set<string>>();
  /** Bridges playing music on hold to their channels. */
  readonly musicOnHold = new Set<string>();
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(private readonly scripts: Record<string, ScriptStep[]> = {}) {
    this.server = createServer((req, res) => this.rest(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket, head) => {
      const url = new URL(req.url ?? '', 'http://asterisk');
      if (url.pathname !== '/ari/events' || !this.authorized(req) || this.refuseUpgrades > 0) {
        if (this.refuseUpgrades > 0) {
          this.refuseUpgrades -= 1;
          this.refusedUpgrades += 1;
        }
        socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        (ws as WebSocket & { app?: string }).app = url.searchParams.get('app') ?? '';
        this.connections.push(ws);
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  openSockets(): WebSocket[] {
    return this.connections.filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  /** Drops every events socket, as an Asterisk restart does. */
  dropAll(): void {
    for (const ws of this.openSockets()) ws.terminate();
  }

  /** Sends one event to the app's open sockets. */
  emit(app: string, event: Record<string, unknown>): void {
    const text = JSON.stringify({ application: app, timestamp: ariTime(), ...event });
    for (const ws of this.openSockets()) {
      if ((ws as WebSocket & { app?: string }).app === app) ws.send(text);
    }
  }

  /**
   * A channel entering `app`: an answered outbound call (state Up, our `run_id=…` args) or a call
   * the dialplan sends (`Stasis(app)`, state Ring, with its extension and caller).
   */
  enterStasis(
    app: string,
    id: string,
    {
      state = 'Up',
      args = [],
      exten,
      caller,
    }: { state?: string; args?: string[]; exten?: string; caller?: string } = {},
  ): void {
    const channel = this.channels.get(id) ?? this.channel(id, app, args, state, `PJSIP/trunk-${id}`);
    channel.inStasis = true;
    this.emit(app, {
      type: 'StasisStart',
      args,
      channel: {
        ...this.json(channel),
        ...(caller === undefined ? {} : { caller: { name: '', number: caller } }),
        ...(exten === undefined ? {} : { dialplan: { context: 'from-trunk', exten, priority: 1 } }),
      },
    });
  }

  /** The far end hangs up: StasisEnd (when in Stasis) and ChannelDestroyed, as Asterisk sends them. */
  hangUp(id: string, cause = 16): void {
    const channel = this.channels.get(id);
    if (!channel) return;
    this.channels.delete(id);
    for (const members of this.bridges.values()) members.delete(id);
    if (channel.inStasis) this.emit(channel.app, { type: 'StasisEnd', channel: this.json(channel) });
    this.emit(channel.app, { type: 'ChannelDestroyed', cause, cause_txt: '', channel: this.json(channel) });
    if (channel.media && channel.media.socket.readyState === WebSocket.OPEN) channel.media.stop();
  }

  /** Requests received since `from` (an index into `requests`). */
  requestsSince(from: number): AriRequest[] {
    return this.requests.slice(from);
  }

  async close(): Promise<void> {
    for (const channel of this.channels.values()) channel.media?.socket.terminate();
    for (const ws of this.connections) ws.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private authorized(req: IncomingMessage): boolean {
    return req.headers.authorization === `Basic ${Buffer.from(`${ARI_USER}:${this.password}`).toString('base64')}`;
  }

  private channel(id: string, app: string, args: string[], state: string, name: string): FakeChannel {
    const channel: FakeChannel = { id, name, app, args, state, created: Date.now(), inStasis: false };
    this.channels.set(id, channel);
    return channel;
  }

  private json(channel: FakeChannel): Record<string, unknown> {
    return { id: channel.id, name: channel.name, state: channel.state, creationtime: ariTime(channel.created) };
  }

  private rest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '', 'http://asterisk');
    const query = Object.fromEntries(url.searchParams.entries());
    this.requests.push({ method: req.method ?? '', path: url.pathname, query });
    const answer = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
    };
    if (!this.authorized(req)) return answer(401, { message: 'Authentication required' });
    const route = `${req.method ?? ''} ${url.pathname}`;
    if (route === 'POST /ari/channels/externalMedia') return this.externalMedia(query, answer);
    if (route === 'GET /ari/channels')
      return answer(
        200,
        [...this.channels.values()].map((c) => this.json(c)),
      );
    if (route === 'GET /ari/bridges') {
      return answer(
        200,
        [...this.bridges].map(([id, members]) => ({ ...this.bridgeJson(id), channels: [...members] })),
      );
    }
    const bridgeMoh = /^\/ari\/bridges\/([^/]+)\/moh$/.exec(url.pathname)?.[1];
    if (bridgeMoh) return this.bridgeMusic(req.method ?? '', bridgeMoh, answer);
    const removal = /^\/ari\/bridges\/([^/]+)\/removeChannel$/.exec(url.pathname)?.[1];
    if (removal && req.method === 'POST') return this.removeChannel(removal, query.channel ?? '', answer);
    const bridge = /^\/ari\/bridges\/([^/]+)(\/addChannel)?$/.exec(url.pathname);
    if (bridge?.[1]) return this.bridgeRequest(req.method ?? '', bridge[1], Boolean(bridge[2]), query, answer);
    const answerPath = /^\/ari\/channels\/([^/]+)\/answer$/.exec(url.pathname);
    if (req.method === 'POST' && answerPath?.[1]) return this.answerChannel(answerPath[1], answer);
    const id = /^\/ari\/channels\/([^/]+)$/.exec(url.pathname)?.[1];
    if (!id) return answer(404, { message: 'Resource not found' });
    const channel = this.channels.get(id);
    if (req.method === 'GET') return channel ? answer(200, this.json(channel)) : answer(404, {});
    if (req.method === 'DELETE') {
      if (!channel) return answer(404, { message: 'Channel not found' });
      this.hangUp(id);
      return answer(204);
    }
    if (channel) return answer(409, { message: 'Channel with this id already exists' });
    const number = (query.endpoint ?? '').replace(/^PJSIP\//, '');
    const created = this.channel(id, query.app ?? '', (query.appArgs ?? '').split(',').filter(Boolean), 'Down', '');
    created.name = `PJSIP/${number}-00000001`;
    answer(200, this.json(created));
    this.play(created, this.scripts[number] ?? []);
  }

  private answerChannel(id: string, answer: (status: number, body?: unknown) => void): void {
    const channel = this.channels.get(id);
    if (!channel) return answer(404, { message: 'Channel not found' });
    if (!channel.inStasis) return answer(409, { message: 'Channel not in Stasis application' });
    channel.state = 'Up';
    answer(204);
    this.emit(channel.app, { type: 'ChannelStateChange', channel: this.json(channel) });
  }

  private bridgeJson(id: string) {
    return { id, technology: 'simple_bridge', bridge_type: 'mixing', bridge_class: 'stasis', creator: 'Stasis' };
  }

  private bridgeRequest(
    method: string,
    id: string,
    addChannel: boolean,
    query: Record<string, string>,
    answer: (status: number, body?: unknown) => void,
  ): void {
    const members = this.bridges.get(id);
    if (method === 'DELETE' && !addChannel) {
      if (!members) return answer(404, { message: 'Bridge not found' });
      this.bridges.delete(id);
      return answer(204);
    }
    if (method !== 'POST') return answer(405, { message: 'Method not allowed' });
    if (!addChannel) {
      if (members) {
        if (query.type)
          return answer(500, { message: 'Supplying a bridge type when updating a bridge is not allowed.' });
        return answer(200, { ...this.bridgeJson(id), channels: [...members] });
      }
      if (query.type && query.type !== 'mixing') return answer(500, { message: 'Unable to create bridge' });
      this.bridges.set(id, new Set());
      return answer(200, { ...this.bridgeJson(id), channels: [] });
    }
    if (!members) return answer(404, { message: 'Bridge not found' });
    const ids = (query.channel ?? '').split(',').filter(Boolean);
    if (ids.length === 0) return answer(400, { message: 'Missing parameter channel' });
    for (const channelId of ids) {
      const channel = this.channels.get(channelId);
      if (!channel) return answer(400, { message: 'Channel not found' });
      if (!channel.inStasis) return answer(422, { message: 'Channel not in Stasis application' });
    }
    for (const channelId of ids) {
      for (const other of this.bridges.values()) other.delete(channelId);
      members.add(channelId);
    }
    answer(204);
  }

  /** `POST`/`DELETE /ari/bridges/{id}/moh`: 404 without the bridge. */
  private bridgeMusic(method: string, id: string, answer: (status: number, body?: unknown) => void): void {
    if (!this.bridges.has(id)) return answer(404, { message: 'Bridge not found' });
    if (method === 'POST') this.musicOnHold.add(id);
    else if (method === 'DELETE') this.musicOnHold.delete(id);
    else return answer(405, { message: 'Method not allowed' });
    answer(204);
  }

  /** `POST /ari/bridges/{id}/removeChannel`: 404 no bridge, 400 no channel, 422 not in this bridge. */
  private removeChannel(id: string, channelId: string, answer: (status: number, body?: unknown) => void): void {
    const members = this.bridges.get(id);
    if (!members) return answer(404, { message: 'Bridge not found' });
    if (!this.channels.has(channelId)) return answer(400, { message: 'Channel not found' });
    if (!members.delete(channelId)) return answer(422, { message: 'Channel not in this bridge' });
    answer(204);
  }

  private externalMedia(query: Record<string, string>, answer: (status: number, body?: unknown) => void): void {
    const { app, external_host: host, format, channelId } = query;
    if (!app || !host || !format) return answer(400, { message: 'app, external_host and format are required' });
    if (query.transport !== 'websocket' || query.encapsulation !== 'none' || query.connection_type !== 'client') {
      return answer(501, { message: 'this Asterisk fake speaks only chan_websocket client mode' });
    }
    if (channelId && this.channels.has(channelId)) {
      return answer(409, { message: 'Channel with given unique ID already exists' });
    }
    const uri = this.websocketClients.get(host);
    const params = /^v\((.*)\)$/.exec(query.transport_data ?? '')?.[1] ?? '';
    // chan_websocket refuses names or values that are not URI-encoded already.
    const encoded = params.split(/[,=]/).every((part) => /^([A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})*$/.test(part));
    // An unknown connection or bad parameters fail the channel request: ARI answers "Allocation failed".
    if (!uri || !encoded || (format !== 'ulaw' && format !== 'slin16')) {
      return answer(500, { message: 'Allocation failed' });
    }
    const id = channelId ?? `${Date.now() / 1000}`;
    const channel = this.channel(id, app, [], 'Down', `WebSocket/${host}/0x5140001a0040`);
    answer(200, this.json(channel));
    this.connectMedia(channel, `${uri}${params ? `?${params.replaceAll(',', '&')}` : ''}`, format);
  }

  /** chan_websocket's client: connect, MEDIA_START, answered, into Stasis; the remote closing hangs up. */
  private connectMedia(channel: FakeChannel, uri: string, format: 'ulaw' | 'slin16'): void {
    const socket = new WebSocket(uri, 'media');
    socket.once('unexpected-response', () => {
      socket.terminate();
      this.hangUp(channel.id, 3);
    });
    socket.once('error', () => this.hangUp(channel.id, 3));
    socket.once('open', () => {
      if (!this.channels.has(channel.id)) return socket.close(1000);
      channel.media = new ChanWebsocketClient(socket, 'plain-text', format);
      channel.media.begin();
      channel.state = 'Up';
      channel.inStasis = true;
      this.emit(channel.app, { type: 'StasisStart', args: [], channel: this.json(channel) });
      socket.once('close', () => this.hangUp(channel.id, 16));
    });
  }

  private play(channel: FakeChannel, script: ScriptStep[]): void {
    for (const step of script) {
      setTimeout(() => {
        if (this.channels.get(channel.id) !== channel) return;
        channel.state = step.state;
        if (step.type === 'ChannelDestroyed') return this.hangUp(channel.id, step.cause);
        if (step.type === 'StasisStart') channel.inStasis = true;
        this.emit(channel.app, {
          type: step.type,
          channel: this.json(channel),
          ...(step.type === 'StasisStart' ? { args: channel.args } : {}),
        });
      }, step.afterMs);
    }
  }
}
