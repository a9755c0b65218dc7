export * from './order.js';
export * from './fill.js';
export * from './typedData.js';
export * from './encoders.js';
