/**
 * The trust-proxy warning on every Koa major: the adapter contract's proxy-warning suite, which
 * expects the message to name Koa's `app.proxy`.
 */
import { proxyWarningSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

proxyWarningSuite(drivers, { setting: /Koa's `app.proxy`/ });
