# voice-test/node:20 — stands in for the official node:20-bookworm-slim in the compose test (no
# registry is reachable there): the machine's own Node 20 and npm on the debootstrap base, and the
# `node` user (uid 1000) deploy/Dockerfile runs the app as. ca.crt: the certificates Node trusts on
# this machine (engine.sh copies them), so `npm ci` in the app's build gets through the same network.
FROM voice-test/debian:bookworm
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca.crt /usr/local/share/voice-test/ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/voice-test/ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
