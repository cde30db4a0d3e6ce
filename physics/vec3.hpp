#pragma once
// A three-component vector usable on host and device (no <array>, no iostream).
#include "physics/hd.hpp"

namespace hemo::phys {

template <class Real>
struct Vec3 {
  Real x{}, y{}, z{};
  HEMO_HD constexpr Real operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

template <class Real>
HEMO_HD constexpr Real dot(const Vec3<Real>& a, const Vec3<Real>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <class Real>
HEMO_HD constexpr Vec3<Real> operator+(const Vec3<Real>& a, const Vec3<Real>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class Real>
HEMO_HD constexpr Vec3<Real> operator-(const Vec3<Real>& a, const Vec3<Real>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class Real>
HEMO_HD constexpr Vec3<Real> operator-(const Vec3<Real>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class Real>
HEMO_HD constexpr Vec3<Real> operator*(Real s, const Vec3<Real>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class Real>
HEMO_HD constexpr Vec3<Real> cross(const Vec3<Real>& a, const Vec3<Real>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

template <class To, class From>
HEMO_HD constexpr Vec3<To> cast(const Vec3<From>& v) {
  return {static_cast<To>(v.x), static_cast<To>(v.y), static_cast<To>(v.z)};
}

}  // namespace hemo::phys
