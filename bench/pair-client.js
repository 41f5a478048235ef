// The load generator of the promise pairs (bench/scale-pairs.js): one keep-alive HTTP/1.1 connection on a
// plain socket, one request at a time. A pair is two dependent calls (the redeem needs the token the call
// answered), so autocannon does not fit; node:http's client costs about as much CPU per request as the server
// under test, CPU that the 2-core machine then takes from the server and Redis alike. This one parses only what
// the MCP-lite server sends back (a status line, headers with Content-Length, a JSON body).
import { connect } from 'node:net';

/** One keep-alive connection to an MCP-lite server; `post` sends one JSON-RPC body and resolves its reply. */
export class PairConnection {
  /** `url`: the server's rpc URL (http only). */
  constructor(url) {
    const u = new URL(url);
    this.port = Number(u.port);
    this.host = u.hostname;
    this.head = `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: `;
    this.pending = undefined;
    this.connect();
  }

  /** Opens the socket; again when the server closed an idle one (keep-alive timeout between rounds). */
  connect() {
    this.socket = connect(this.port, this.host);
    this.socket.setNoDelay(true);
    this.socket.setEncoding('latin1');
    this.buffer = '';
    this.socket.on('data', (chunk) => {
      this.buffer += chunk;
      this.deliver();
    });
    const fail = (err) => {
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err ?? new Error('connection closed'));
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail());
  }

  /** Sends `body` (a JSON string of ASCII text); resolves `{ status, text }` once the whole reply is in. */
  post(body) {
    if (this.pending) return Promise.reject(new Error('PairConnection: one request at a time'));
    if (this.socket.destroyed || this.socket.readyState === 'closed') this.connect();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(`${this.head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  close() {
    this.socket.destroy();
  }

  /** Hands the reply over once its headers and Content-Length bytes of body are buffered. */
  deliver() {
    if (!this.pending) return;
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffer.slice(0, end);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
    if (!Number.isFinite(length)) {
      this.pending.reject(new Error(`reply without Content-Length: ${head.slice(0, 200)}`));
      this.pending = undefined;
      return;
    }
    if (this.buffer.length < end + 4 + length) return;
    // latin1 keeps one char per byte, so lengths match; the body is decoded as UTF-8 here.
    const text = Buffer.from(this.buffer.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
    this.buffer = this.buffer.slice(end + 4 + length);
    const { resolve } = this.pending;
    this.pending = undefined;
    resolve({ status: Number(head.slice(9, 12)), text });
  }
}
