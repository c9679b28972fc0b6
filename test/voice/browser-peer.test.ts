import { RTCPeerConnection, useOPUS, type RtpPacket } from 'werift';
import { BrowserPeer } from '../../voice/webrtc/browser-peer';
import { waitFor } from '../helpers/wait-for';

/** Holds the event loop, as a long garbage collection or an overloaded machine does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe("a web call's peer sending the agent's audio", () => {
  it("keeps the stream's clock on the wall clock across a stall of the event loop", async () => {
    // The browser's side: a werift peer that only receives, as the page's offer asks.
    const browser = new RTCPeerConnection({ codecs: { audio: [useOPUS()], video: [] } });
    const transceiver = browser.addTransceiver('audio', { direction: 'recvonly' });
    const received: { at: number; packet: RtpPacket }[] = [];
    transceiver.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => received.push({ at: Date.now(), packet }));
    });
    let gone = false;
    const peer = new BrowserPeer([], {
      onCallerAudio: () => undefined,
      onConnected: () => undefined,
      onGone: () => (gone = true),
    });
    try {
      await browser.setLocalDescription(await browser.createOffer());
      const offer = browser.localDescription;
      if (!offer) throw new Error('no offer');
      await browser.setRemoteDescription({ type: 'answer', sdp: await peer.answer(offer.sdp) });
      await waitFor('the first packets', () => received.length >= 10, { timeoutMs: 30_000, intervalMs: 20 });

      stall(600);
      const afterStall = received.length;
      await waitFor('packets after the stall', () => received.length >= afterStall + 10, {
        timeoutMs: 30_000,
        intervalMs: 20,
      });

      // The last packet's timestamp (48 kHz) against the first's: as much stream time as wall time
      // went by between their arrivals, give or take the catch-up burst (five frames) and timer
      // jitter; without the skipped frames counted, the stream would fall 500 ms behind at the stall.
      const first = received[0];
      const last = received.at(-1);
      if (!first || !last) throw new Error('no packets');
      const streamMs = (((last.packet.header.timestamp - first.packet.header.timestamp) >>> 0) / 48_000) * 1000;
      const wallMs = last.at - first.at;
      expect(Math.abs(streamMs - wallMs)).toBeLessThan(250);
      // Sequence numbers stay contiguous: the gap is a pause, not lost packets.
      const sequences = received.map(({ packet }) => packet.header.sequenceNumber);
      expect(
        sequences.every((sequence, index) => index === 0 || sequence === ((sequences[index - 1] ?? 0) + 1) % 65_536),
      ).toBe(true);
      expect(gone).toBe(false);
    } finally {
      await peer.close();
      await browser.close();
    }
  }, 60_000);
});
