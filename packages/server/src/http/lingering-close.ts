import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// How much a connection may still send after its answer, and for how long, before it is cut: room
// for a client that reads the answer only once its body is sent, little for one that never stops.
const LINGER_BYTES = 32 * 1024 * 1024;
const LINGER_MS = 10_000;

/**
 * Closes in stages the connection of an answer sent before its request's body was all read.
 *
 * A refusal (413 for a body over the limit, 415, a body that does not parse) is sent with
 * Connection: close while the client may still be sending. Node then destroys the socket as soon
 * as the answer is written, and closing a socket with unread bytes makes the kernel send a reset,
 * which can destroy the answer before the client reads it (RFC 9112 9.6). Instead, the server
 * half-closes, reads and drops the rest of the body, and cuts the connection once the client has
 * sent it all or closed its side, or after a bound of bytes or time.
 */
export function lingerAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  // A request without a body leaves nothing unread; reads, most requests by far, skip the listener.
  const { headers } = request;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return;
  // After Node's own listener, which has ended the socket by then if the answer was the last.
  response.once('finish', () => {
    const socket = request.socket;
    if (request.complete || socket.destroyed || socket.readableEnded) return;
    // Node's close of a last answer's connection (`destroySoon`): the end is written, then the
    // socket destroyed. An answer that keeps the connection has it read the body on instead.
    if (socket.listenerCount('finish', socket.destroy) === 0) return;
    socket.removeListener('finish', socket.destroy);
    drainThenDestroy(socket, request);
  });
}

function drainThenDestroy(socket: Socket, request: IncomingMessage): void {
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  // Nothing is unread once the body has all arrived; a client's own close ends the socket too.
  request.once('end', cut);
  // As Node drops a body nobody read: no reader is left to hold it.
  request.removeAllListeners('data');
  request.resume();
}
