/**
 * The web-call page: plain HTML, CSS and a script, no build step. The script reads the run and its
 * token from the URL fragment, opens the call's signalling socket, sends the microphone (echo
 * cancellation on) over WebRTC, plays the agent, and shows the transcript as it comes.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Talk to the agent</title>
<link rel="stylesheet" href="/web-call/page.css">
</head>
<body>
<main>
  <header>
    <h1>Talk to the agent</h1>
    <p id="status" role="status">Connecting…</p>
  </header>
  <div class="meter" aria-hidden="true"><span>Agent</span><div><i id="agent-level"></i></div></div>
  <ol id="transcript" aria-live="polite"></ol>
  <button id="hangup" type="button" disabled>Hang up</button>
</main>
<audio id="agent-audio" autoplay></audio>
<script src="/web-call/page.js"></script>
</body>
</html>
`;

export const PAGE_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; display: flex; justify-content: center; background: Canvas; color: CanvasText; }
main { width: min(40rem, 100%); padding: 1.5rem; box-sizing: border-box; display: flex; flex-direction: column; gap: 1rem; }
h1 { font-size: 1.4rem; margin: 0; }
#status { margin: .25rem 0 0; color: GrayText; }
.meter { display: flex; align-items: center; gap: .75rem; font-size: .9rem; }
.meter div { flex: 1; height: .5rem; border-radius: .25rem; background: color-mix(in srgb, CanvasText 12%, transparent); overflow: hidden; }
.meter i { display: block; height: 100%; width: 0; background: #2e7d32; transition: width 80ms linear; }
#transcript { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .5rem; min-height: 12rem; }
#transcript li { padding: .5rem .75rem; border-radius: .75rem; max-width: 85%; }
#transcript li.assistant { background: color-mix(in srgb, #1565c0 15%, Canvas); align-self: flex-start; }
#transcript li.user { background: color-mix(in srgb, #2e7d32 15%, Canvas); align-self: flex-end; }
#transcript li b { display: block; font-size: .75rem; opacity: .7; }
#hangup { align-self: center; padding: .6rem 2rem; border: 0; border-radius: 2rem; background: #c62828; color: white; font-size: 1rem; cursor: pointer; }
#hangup:disabled { opacity: .5; cursor: default; }
`;

export const PAGE_JS = `'use strict';
(() => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const runId = fragment.get('run');
  const token = fragment.get('token');
  // The token is single use: keep it out of the address bar and the history.
  history.replaceState(null, '', location.pathname);
  const statusLine = document.getElementById('status');
  const transcript = document.getElementById('transcript');
  const hangupButton = document.getElementById('hangup');
  const agentAudio = document.getElementById('agent-audio');
  const agentLevel = document.getElementById('agent-level');
  /** What tests and embedding pages can read: the agent's loudest level so far (0..1) and the state. */
  const call = (window.webCall = { state: 'connecting', agentPeak: 0, lines: [], ended: null });
  let socket = null;
  let peer = null;
  let microphone = null;
  const say = (text) => { statusLine.textContent = text; };

  const show = (role, text) => {
    call.lines.push({ role, text });
    const item = document.createElement('li');
    item.className = role;
    const who = document.createElement('b');
    who.textContent = role === 'assistant' ? 'Agent' : 'You';
    item.append(who, document.createTextNode(text));
    transcript.append(item);
    item.scrollIntoView({ block: 'end' });
  };

  const finish = (text) => {
    if (call.state === 'ended') return;
    call.state = 'ended';
    call.ended = text;
    say(text);
    hangupButton.disabled = true;
    if (peer) peer.close();
    if (microphone) microphone.getTracks().forEach((track) => track.stop());
    if (socket && socket.readyState === WebSocket.OPEN) socket.close(1000);
  };

  const measure = (stream) => {
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      const level = Math.sqrt(sum / samples.length);
      call.agentPeak = Math.max(call.agentPeak, level);
      agentLevel.style.width = Math.min(100, level * 400) + '%';
    }, 50);
  };

  const gathered = (pc) =>
    new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') return resolve();
      const done = () => { if (pc.iceGatheringState === 'complete') resolve(); };
      pc.addEventListener('icegatheringstatechange', done);
      // With slow STUN or TURN servers, go with the candidates found so far.
      setTimeout(resolve, 3000);
    });

  const start = async (iceServers) => {
    microphone = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    peer = new RTCPeerConnection({ iceServers });
    for (const track of microphone.getAudioTracks()) peer.addTrack(track, microphone);
    peer.addEventListener('track', (event) => {
      const stream = event.streams[0] || new MediaStream([event.track]);
      agentAudio.srcObject = stream;
      measure(stream);
    });
    peer.addEventListener('connectionstatechange', () => {
      if (peer.connectionState === 'connected') {
        call.state = 'connected';
        say('Connected: speak to the agent.');
        hangupButton.disabled = false;
      } else if (peer.connectionState === 'failed') finish('The connection failed.');
    });
    await peer.setLocalDescription(await peer.createOffer());
    await gathered(peer);
    socket.send(JSON.stringify({ type: 'offer', sdp: peer.localDescription.sdp }));
  };

  hangupButton.addEventListener('click', () => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'hangup' }));
    finish('You hung up.');
  });

  if (!runId || !token) {
    finish('This page needs the link a web call answered.');
    return;
  }
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(scheme + '://' + location.host + '/api/v1/telephony/web/media/' + encodeURIComponent(runId) +
    '?token=' + encodeURIComponent(token));
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'ready') {
      say('Asking for the microphone…');
      start(message.ice_servers).catch((error) => finish('Could not start the call: ' + error.message));
    } else if (message.type === 'answer') {
      peer.setRemoteDescription({ type: 'answer', sdp: message.sdp }).catch((error) => finish(error.message));
    } else if (message.type === 'transcript') {
      show(message.role, message.text);
    } else if (message.type === 'event' && message.name === 'speech_started') {
      say('Listening…');
    } else if (message.type === 'ended') {
      finish('The agent ended the call.');
    } else if (message.type === 'error') {
      finish(message.detail);
    }
  });
  socket.addEventListener('close', (event) => {
    if (call.state !== 'ended') finish(event.code === 1000 ? 'The call ended.' : 'The call could not be joined (it may have expired).');
  });
})();
`;
