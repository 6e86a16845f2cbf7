// The tables of live handles (see handle_table.h).
#include <atomic>

#include "handles.h"

namespace qv::capi {

uintptr_t NextHandleToken() {
  static std::atomic<uintptr_t> next{1};
  return next.fetch_add(1) * 16;
}

HandleTable<QvSymbolHandle, QvSymbol_>& Symbols() {
  static auto* table = new HandleTable<QvSymbolHandle, QvSymbol_>();  // never destroyed: used until exit
  return *table;
}

HandleTable<QvNDArrayHandle, NDArray>& Arrays() {
  static auto* table = new HandleTable<QvNDArrayHandle, NDArray>();
  return *table;
}

HandleTable<QvCachedOpHandle, QvCachedOp_>& CachedOps() {
  static auto* table = new HandleTable<QvCachedOpHandle, QvCachedOp_>();
  return *table;
}

HandleTable<QvCalibratorHandle, QvCalibrator_>& Calibrators() {
  static auto* table = new HandleTable<QvCalibratorHandle, QvCalibrator_>();
  return *table;
}

}  // namespace qv::capi
