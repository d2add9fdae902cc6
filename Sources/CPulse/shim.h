#ifndef OPENSPEECH_CPULSE_SHIM_H
#define OPENSPEECH_CPULSE_SHIM_H
// PulseAudio's client library (libpulse), for microphone capture. Also talks to PipeWire's PulseAudio server.
#include <pulse/pulseaudio.h>
#endif
