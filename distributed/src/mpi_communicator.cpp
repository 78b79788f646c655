#include <mpi.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/distributed/mpi.h"
#include "ardent/preprocess/errors.h"

namespace ardent::distributed {
namespace {

void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string("MPI: ") + what + ": " + std::string(text, len));
}

int count_of(size_t n) {
    if (n > static_cast<size_t>(INT_MAX))
        throw std::length_error("MPI: a message of " + std::to_string(n) +
                                " elements exceeds one call's limit");
    return static_cast<int>(n);
}

// Initialised once per process; finalised when the last communicator goes.
int g_handles = 0;

class MpiCommunicator final : public Communicator {
  public:
    MpiCommunicator() {
        int ready = 0;
        MPI_Initialized(&ready);
        if (!ready) {
            int provided = 0;
            // Only the thread that calls simulate() talks to MPI.
            check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init");
        }
        ++g_handles;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
    }
    ~MpiCommunicator() override {
        if (--g_handles == 0) {
            int done = 0;
            MPI_Finalized(&done);
            if (!done) MPI_Finalize();
        }
    }
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }

    void exchange(std::span<const Message> sends, std::span<const Message> receives) override {
        requests_.assign(sends.size() + receives.size(), MPI_REQUEST_NULL);
        size_t k = 0;
        for (const Message& m : receives)
            check(MPI_Irecv(m.data, count_of(m.bytes), MPI_BYTE, m.peer, kTag, MPI_COMM_WORLD,
                            &requests_[k++]),
                  "receive");
        for (const Message& m : sends)
            check(MPI_Isend(m.data, count_of(m.bytes), MPI_BYTE, m.peer, kTag, MPI_COMM_WORLD,
                            &requests_[k++]),
                  "send");
        check(
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
            "wait");
    }

    double sum(double value) override {
        double out = 0;
        check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "sum");
        return out;
    }

    bool any(bool value) override {
        int in = value ? 1 : 0, out = 0;
        check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "any");
        return out != 0;
    }

    void sum_to_root(double* data, size_t n) override { reduce(data, n, MPI_DOUBLE); }
    void sum_to_root(float* data, size_t n) override { reduce(data, n, MPI_FLOAT); }

    void broadcast(std::string& text) override {
        unsigned long long n = text.size();
        check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "broadcast");
        text.resize(static_cast<size_t>(n));
        check(MPI_Bcast(text.data(), count_of(text.size()), MPI_CHAR, 0, MPI_COMM_WORLD),
              "broadcast");
    }

    void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

  private:
    static constexpr int kTag = 7;
    template <typename T>
    void reduce(T* data, size_t n, MPI_Datatype type) {
        constexpr size_t kBlock = size_t{1} << 28;
        for (size_t i = 0; i < n; i += kBlock) {
            const int c = count_of(std::min(kBlock, n - i));
            if (rank_ == 0)
                check(MPI_Reduce(MPI_IN_PLACE, data + i, c, type, MPI_SUM, 0, MPI_COMM_WORLD),
                      "gather");
            else
                check(MPI_Reduce(data + i, nullptr, c, type, MPI_SUM, 0, MPI_COMM_WORLD), "gather");
        }
    }

    int rank_ = 0, size_ = 1;
    std::vector<MPI_Request> requests_;
};

}  // namespace

bool mpi_built() {
    return true;
}

std::unique_ptr<Communicator> mpi_world() {
    return std::make_unique<MpiCommunicator>();
}

void abort_all(int code) {
    int ready = 0;
    MPI_Initialized(&ready);
    if (ready) MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace ardent::distributed
