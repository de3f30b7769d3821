/**
 * The trust-proxy warning on every Express major: the adapter contract's proxy-warning suite, which
 * expects the message to name Express's `trust proxy` setting.
 */
import { proxyWarningSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

proxyWarningSuite(drivers, { setting: /Express's `trust proxy` setting/ });
