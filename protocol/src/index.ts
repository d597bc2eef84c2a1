export * from './api.ts';
export * from './avatars.ts';
export * from './constants.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './languages.ts';
export * from './profile.ts';
export * from './validation.ts';
