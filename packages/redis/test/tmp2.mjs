import { createClient } from 'redis';
const c = createClient({ socket: { port: 6390, host: '127.0.0.1', reconnectStrategy: () => 50 } });
c.on('error', (e) => console.log('error event', e.message));
const t = Date.now();
const p = c.connect().then(() => console.log('connected'), (e) => console.log('connect rejected', e.message, Date.now() - t));
setTimeout(async () => {
  try { const r = c.sendCommand(['PING']); r.then((x) => console.log('ping', x), (e) => console.log('ping rejected', e.message, Date.now() - t)); } catch (e) { console.log('sync throw', e.message); }
}, 100);
setTimeout(() => { c.destroy(); }, 600);
