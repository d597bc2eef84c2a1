import { setTimeout as sleep } from 'node:timers/promises';
import { apiCall, CallBrowser, createPerson, expectHearing, joinFromList, openRooms, roomAudio, roomView, PEER_CONNECTIONS } from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';

const baseURL = 'https://localhost:18443';
const alice = await createPerson(baseURL, 'Alice');
const bob = await createPerson(baseURL, 'Bob');
const roomName = `Swarm ${Date.now().toString(36)}`;
await apiCall(baseURL, ROOM_ROUTES.rooms, { method: 'POST', token: alice.token, body: { name: roomName, type: 'public' } });
const args = ['--ignore-certificate-errors'];
const a = await CallBrowser.launch({ speaker: 'alice', baseURL, args });
const b = await CallBrowser.launch({ speaker: 'bob', baseURL, args });
const rtc: Record<string, string> = {};
for (const [name, browser] of [['alice', a], ['bob', b]] as const) {
  browser.page.on('websocket', (socket) => {
    if (socket.url().includes('/rtc')) rtc[name] = socket.url().split('?')[0] as string;
  });
  browser.page.on('console', (m) => { if (m.type() === 'error') console.log(name, m.text().slice(0, 200)); });
}
await openRooms(a.page, alice);
await joinFromList(a.page, roomName);
await sleep(3000);
await openRooms(b.page, bob);
await joinFromList(b.page, roomName);
await sleep(8000);
console.log('media servers:', rtc);
await a.page.screenshot({ path: '/tmp/swarm-alice.png' });
for (const [n, p] of [['alice', a.page], ['bob', b.page]] as const) {
  console.log(n, JSON.stringify(await roomAudio(p)));
  console.log(n, await p.evaluate(async (key) => {
    const pcs = (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? [];
    const out = [];
    for (const pc of pcs) {
      const st = [...(await pc.getStats()).values()].filter((x) => x.type === 'outbound-rtp' || x.type === 'inbound-rtp' || (x.type === 'candidate-pair' && x.nominated)).map((x) => `${x.type}:${x.bytesSent ?? x.bytesReceived}`);
      out.push(`${pc.connectionState} ${st.join(' ')}`);
    }
    return out.join(' | ');
  }, PEER_CONNECTIONS));
}
await b.page.screenshot({ path: '/tmp/swarm-bob.png' });
await expectHearing(a.page, [bob]);
await expectHearing(b.page, [alice]);
console.log('media servers:', rtc);
await sleep(1000);
await b.page.screenshot({ path: '/tmp/swarm-bob.png' });
console.log(await roomView(b.page, roomName).getByRole('status').textContent());
await a.close();
await b.close();
