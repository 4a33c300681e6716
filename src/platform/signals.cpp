#include "platform/signals.h"

namespace Harness {

namespace {

volatile std::sig_atomic_t caught = 0;

void onStopSignal(int signal) { caught = signal; }

}  // namespace

int stopSignal() { return caught; }

const volatile std::sig_atomic_t *stopFlag() { return &caught; }

std::string stopSignalName(int signal) {
    return signal == 0 ? "" : signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal " + std::to_string(signal);
}

StopSignals::StopSignals() {
    caught = 0;
    previousInt_ = std::signal(SIGINT, onStopSignal);
    previousTerm_ = std::signal(SIGTERM, onStopSignal);
}

StopSignals::~StopSignals() {
    std::signal(SIGINT, previousInt_);
    std::signal(SIGTERM, previousTerm_);
}

}  // namespace Harness
