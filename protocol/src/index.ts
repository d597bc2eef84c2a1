export * from './api.ts';
export * from './constants.ts';
export * from './errors.ts';
export * from './languages.ts';
export * from './validation.ts';
