#include "tensor/storage_pool.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <set>

using namespace qv;

TEST_CASE("a pool hands returned blocks out again, by size", "[storage]") {
  StoragePool pool;
  void* first = nullptr;
  {
    StoragePool::Lease a = pool.Borrow(256);
    REQUIRE(static_cast<unsigned char*>(a.data())[255] == 0);  // new blocks are zero-filled
    std::memset(a.data(), 0xab, 256);
    first = a.data();
  }
  void* second = nullptr;
  {
    StoragePool::Lease again = pool.Borrow(256);
    CHECK(again.data() == first);
    CHECK(static_cast<unsigned char*>(again.data())[0] == 0xab);  // as its last borrower left it
    StoragePool::Lease another = pool.Borrow(256);                // the first is out: a new block
    second = another.data();
    CHECK(second != first);
    StoragePool::Lease smaller = pool.Borrow(128);  // another size never gets these
    CHECK(smaller.data() != first);
    CHECK(smaller.data() != second);
  }
  // Both 256-byte blocks were kept and come back (in some order) before any new one.
  StoragePool::Lease x = pool.Borrow(256), y = pool.Borrow(256);
  CHECK(std::set<void*>{x.data(), y.data()} == std::set<void*>{first, second});
}
