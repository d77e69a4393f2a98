# dn_store: the sqlite store (the only user of sqlite3), the statistics
# used by compare, and the change points of `devnet history`.  Included by
# metrics/CMakeLists.txt.
add_library(dn_store STATIC ${CMAKE_CURRENT_LIST_DIR}/store.c
    ${CMAKE_CURRENT_LIST_DIR}/stats.c
    ${CMAKE_CURRENT_LIST_DIR}/changepoint.c)
dn_target(dn_store)
target_include_directories(dn_store PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(dn_store PUBLIC PkgConfig::SQLITE3 dn_wire m)
