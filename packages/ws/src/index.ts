// @ratekeeper/ws: per-message limits for ws and socket.io servers over @ratekeeper/core, and the
// upgrade limited before the handshake. Limiters, stores and clocks come from @ratekeeper/core.
export type { CommonLimitOptions, LimitAction, LimitInfo } from './options.js';
export { type EventLimitOptions, eventLimit, type IoSocket, type LimitEvents, type Packet } from './socket-io.js';
export { limitUpgrades, type UpgradeLimitOptions } from './upgrade.js';
export { type LimitMessages, type MessageHandler, type MessageLimitOptions, messageLimit, type WsSocket } from './ws.js';
