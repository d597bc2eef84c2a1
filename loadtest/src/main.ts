// The CLI entry point (`npm run loadtest -- …`, `npx voice-loadtest …`).
console.error('voice-loadtest: not built yet');
process.exit(2);
