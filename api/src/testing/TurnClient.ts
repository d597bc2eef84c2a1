/** The STUN/TURN client lives in webrtc/ now (the doctor uses it in production); tests import it here too. */
export * from '../webrtc/TurnClient.ts';
