export * from './order.js';
export * from './fill.js';
export * from './typed-data.js';
export * from './encoders.js';
